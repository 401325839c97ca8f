#include "common.h"
	BEGIN_MAIN
	LI	a2, 0xfffe8001
	LI	a3, 0x00017fff
	mul16u	a4, a2, a3
	mul16s	a5, a2, a3
	mul16s	a6, a2, a2
	mull	a7, a2, a3
	mull	a8, a2, a2
	LI	a9, 0x80000000
	movi	a10, -1
	quos	a11, a9, a10		/* overflow: 0x80000000 */
	rems	a12, a9, a10		/* 0 */
	quou	a13, a9, a10
	remu	a14, a9, a10
	movi	a10, -7
	LI	a15, 100
	quos	a4, a15, a10
	rems	a5, a15, a10
	quos	a6, a10, a15
	rems	a7, a10, a15
	quou	a8, a10, a15
	remu	a11, a10, a15
	movi	a4, 0
	nsa	a5, a4			/* 31 */
	nsau	a6, a4			/* 32 */
	movi	a4, -1
	nsa	a7, a4			/* 31 */
	nsau	a8, a4			/* 0 */
	nsa	a11, a9
	nsau	a12, a9
	movi	a4, 1
	nsa	a13, a4
	nsau	a14, a4
	LI	a4, 0x00012345
	nsa	a15, a4
	movi	a4, -5
	movi	a5, 3
	min	a6, a4, a5
	max	a7, a4, a5
	minu	a8, a4, a5
	maxu	a11, a4, a5
	min	a12, a9, a5
	maxu	a13, a9, a4
	LI	a4, 0x12345687
	sext	a5, a4, 7
	sext	a6, a4, 15
	sext	a7, a4, 22
	LI	a4, 0x000180ff
	sext	a8, a4, 8
	clamps	a11, a4, 7		/* 127 */
	clamps	a12, a9, 7		/* -128 */
	clamps	a13, a4, 22
	movi	a4, -200
	clamps	a14, a4, 7
	movi	a4, 100
	clamps	a15, a4, 7		/* in range */
	END_MAIN
