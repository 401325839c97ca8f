#include "common.h"
	BEGIN_MAIN
	LI	a2, 0x89abcdef
	LI	a3, 0x12345678
	movi	a4, 0
	ssr	a4			/* SAR = 0 */
	sll	a5, a2
	srl	a6, a2
	sra	a7, a2
	src	a8, a3, a2
	movi	a4, 32
	ssl	a4			/* SAR = 32 - 0 = 32 */
	sll	a5, a2
	srl	a6, a2
	sra	a7, a2
	src	a8, a3, a2
	movi	a4, 1
	ssl	a4			/* SAR = 31 */
	sll	a9, a2
	srl	a10, a2
	sra	a11, a2
	src	a12, a3, a2
	movi	a4, 31
	ssr	a4
	sll	a9, a2
	srl	a10, a2
	sra	a11, a2
	src	a12, a3, a2
	movi	a4, 7
	ssa8l	a4			/* SAR = 24 */
	src	a13, a2, a3
	ssa8b	a4			/* SAR = 8 */
	src	a14, a2, a3
	ssai	0
	src	a15, a2, a3
	ssai	17
	sra	a5, a2
	ssai	31
	srl	a6, a2
	movi	a4, 40
	wsr.sar	a4			/* SAR = 40: shifts past 32 */
	sll	a7, a2
	srl	a8, a2
	sra	a9, a2
	src	a10, a3, a2
	rsr.sar	a11
	slli	a5, a2, 1
	slli	a6, a2, 31
	slli	a7, a3, 16
	srli	a8, a2, 0
	srli	a9, a2, 15
	srai	a10, a2, 0
	srai	a11, a2, 31
	srai	a12, a3, 17
	extui	a13, a2, 0, 1
	extui	a14, a2, 31, 1
	extui	a15, a2, 4, 16
	extui	a4, a2, 16, 16
	extui	a5, a3, 7, 9
	END_MAIN
