#include "common.h"
	/* call4/8/12 and callx4/8/12 with spills at every depth; ENTRY exactly at the overflow
	 * boundary; MOVSP; ROTW; WINDOWBASE/WINDOWSTART access; L32E/S32E. */
	BEGIN_MAIN
	mov	a5, a1
	movsp	a1, a5			/* caller frame live: plain move */
	movi	a2, 0
	movi	a6, 20
	call4	rec4
	add	a2, a2, a6
	movi	a10, 20
	call8	rec8
	add	a2, a2, a10
	movi	a14, 12
	call12	rec12
	add	a2, a2, a14
	LI	a9, rec8
	movi	a10, 9
	callx8	a9
	LI	a9, rec4
	movi	a6, 6
	callx4	a9
	LI	a9, rec12
	movi	a14, 4
	callx12	a9
	/* a chain of call8s that fills the 32-register file exactly to the boundary */
	movi	a10, 3
	call8	rec8
	rsr.windowbase a3
	rsr.windowstart a4
	xsr.windowstart a4
	wsr.windowstart a4
	rsync
	l32e	a6, a1, -16
	s32e	a6, a1, -16
	movi	a7, 0x77
	rotw	1			/* our a4..a7 become a0..a3 */
	mov	a8, a3
	rotw	-1
	END_MAIN

	.align	4
rec4:	entry	a1, 32
	beqz	a2, 1f
	addi	a6, a2, -1
	call4	rec4
	add	a2, a2, a6
1:	retw

	.align	4
rec8:	entry	a1, 48
	beqz	a2, 1f
	addi	a10, a2, -1
	movi	a3, 0x55
	call8	rec8
	add	a2, a2, a10
	add	a2, a2, a3
1:	retw

	.align	4
rec12:	entry	a1, 64
	beqz	a2, 1f
	addi	a14, a2, -1
	movi	a3, 7
	movi	a11, 9
	call12	rec12
	add	a2, a2, a14
	add	a2, a2, a11
1:	retw.n
