#include "common.h"
/* Self-modifying code: stores over instructions that already ran (so their decodings are
 * cached) must take effect the next time they execute. main returns 202 = 90 + 100 + 12. */
	BEGIN_MAIN
	/* A byte store into the last byte (imm[7:0]) of a 3-byte MOVI just ahead of the PC,
	 * in a loop: each pass rewrites the immediate, then runs the rewritten instruction. */
	movi	a6, 0
	movi	a5, 3
	LI	a3, ahead
	movi	a8, 10
1:	s8i	a8, a3, 2
	isync
ahead:	movi	a7, 0
	add	a6, a6, a7		/* a6 = 10 + 30 + 50 */
	addi	a8, a8, 20
	addi	a5, a5, -1
	bnez	a5, 1b
	/* A word store over an aligned MOVI (and the first byte of the ADD after it, unchanged):
	 * the word comes from a template with the same layout and another immediate. */
	LI	a3, patch
	LI	a4, template
	movi	a5, 2
	movi	a9, 0
	j	2f
	.align	4
patch:	movi	a10, 1
	add	a9, a9, a10		/* a9 = 1, then 1 + 99 */
	addi	a5, a5, -1
	beqz	a5, 3f
	l32i	a8, a4, 0
	s32i	a8, a3, 0
	isync
2:	j	patch
	.align	4
template:
	movi	a10, 99
	add	a9, a9, a10
3:	add	a2, a6, a9
	/* A halfword store that turns the 2-byte MOV.N at `narrow` from a11 <- a12 into
	 * a11 <- a13, after it ran once. */
	movi	a12, 5
	movi	a13, 7
	movi	a11, 0
	movi	a5, 2
	LI	a3, narrow
	LI	a4, narrow_new
	j	4f
	.align	4
4:
narrow:	mov.n	a11, a12
	add	a2, a2, a11		/* + 5, then + 7 */
	addi	a5, a5, -1
	beqz	a5, 5f
	l16ui	a8, a4, 0
	s16i	a8, a3, 0
	isync
	j	4b
	.align	2
narrow_new:
	mov.n	a11, a13
5:	.end	no-transform
	_retw
	.size	main, . - main
