#include "common.h"
	BEGIN_MAIN
	movi	a2, 0
	movi	a3, 5
	loop	a3, 1f			/* body runs 5 times */
	addi	a2, a2, 1
	addi	a2, a2, 2
1:	movi	a4, 0
	movi	a5, 0
	loopnez	a5, 2f			/* count 0: skipped */
	addi	a4, a4, 1
2:	movi	a5, -3
	loopgtz	a5, 3f			/* count <= 0: skipped */
	addi	a4, a4, 1
3:	movi	a5, 4
	loopgtz	a5, 4f
	addi	a4, a4, 10
	nop
4:	movi	a5, 3
	loopnez	a5, 5f
	addi	a4, a4, 100
	bnez	a4, 5f			/* taken branch to LEND: no loop-back */
5:	movi	a5, 4
	movi	a6, 0
	loop	a5, 6f			/* not-taken branch as the last body instruction loops back */
	addi	a6, a6, 1
	beqz	a5, 6f
6:	movi	a7, 1
	loop	a7, 7f			/* one iteration: LCOUNT starts at 0 */
	addi	a6, a6, 1
7:	rsr.lbeg a8
	rsr.lend a9
	rsr.lcount a10
	movi	a11, 2
	wsr.lcount a11			/* LCOUNT written directly, LEND still set */
	isync
	movi	a12, 0
	LI	a13, 8f
	wsr.lbeg a13
	LI	a13, 9f
	wsr.lend a13
	isync
8:	addi	a12, a12, 1
	nop
9:	movi	a11, 0
	wsr.lcount a11
	xsr.lcount a11
	xsr.lbeg a11
	xsr.lend a11
	movi	a14, 2
	loopnez	a14, 10f		/* a narrow instruction ends the body */
	addi.n	a12, a12, 1
10:	END_MAIN
