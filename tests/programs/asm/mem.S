#include "common.h"
	.data
	.align	4
buf:	.word	0x11223344, 0x8899aabb, 0xfedcba98, 0x01234567, 0, 0, 0, 0
	BEGIN_MAIN
	LI	a2, buf
	l8ui	a3, a2, 0
	l8ui	a4, a2, 7
	l16ui	a5, a2, 2
	l16ui	a6, a2, 6
	l16si	a7, a2, 6
	l16si	a8, a2, 4
	l32i	a9, a2, 8
	l32i.n	a10, a2, 12
	l32ai	a11, a2, 4
	LI	a12, 0xcafe1234
	s8i	a12, a2, 16
	s8i	a12, a2, 19
	s16i	a12, a2, 20
	s32i	a12, a2, 24
	s32i.n	a3, a2, 28
	s32ri	a4, a2, 28
	l32i	a13, a2, 16
	l32i	a14, a2, 20
	l32i	a15, a2, 28
	/* S32C1I: compare-and-swap, success then failure */
	movi	a3, 0x29		/* ATOMCTL: uncached memory performs RCW (reset 0x28 traps) */
	wsr.atomctl a3
	movi	a3, 0
	s32i	a3, a2, 24
	wsr.scompare1 a3
	movi	a4, 77
	s32c1i	a4, a2, 24		/* succeeds: a4 = 0, mem = 77 */
	movi	a5, 99
	s32c1i	a5, a2, 24		/* fails: a5 = 77 */
	l32i	a6, a2, 24
	rsr.scompare1 a7
	END_MAIN
