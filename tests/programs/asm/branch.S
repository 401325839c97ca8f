#include "common.h"
	.macro	TAKEN insn:vararg	/* the branch must be taken: falls into an ill otherwise */
	\insn, 1f
	ill
1:
	.endm
	.macro	NOT insn:vararg		/* the branch must not be taken */
	\insn, 1f
	j	2f
1:	ill
2:
	.endm
	BEGIN_MAIN
	movi	a2, 5
	movi	a3, -5
	movi	a4, 5
	movi	a5, 0
	LI	a6, 0x80000000
	TAKEN	beq a2, a4
	NOT	beq a2, a3
	TAKEN	bne a2, a3
	NOT	bne a2, a4
	TAKEN	blt a3, a2
	NOT	blt a2, a3
	TAKEN	bge a2, a3
	TAKEN	bge a2, a4
	TAKEN	bltu a2, a3
	NOT	bltu a3, a2
	TAKEN	bgeu a3, a2
	NOT	bgeu a2, a3
	TAKEN	bany a2, a4
	NOT	bany a2, a5
	TAKEN	bnone a2, a6
	NOT	bnone a2, a4
	TAKEN	ball a3, a6
	NOT	ball a2, a3
	TAKEN	bnall a2, a3
	NOT	bnall a3, a6
	movi	a7, 31
	movi	a8, 1
	TAKEN	bbs a6, a7
	NOT	bbs a2, a8
	TAKEN	bbc a2, a8
	NOT	bbc a6, a7
	TAKEN	bbsi a6, 31
	NOT	bbsi a2, 1
	TAKEN	bbci a2, 1
	NOT	bbci a2, 0
	TAKEN	beqi a2, 5
	NOT	beqi a2, 256
	movi	a9, -1
	TAKEN	beqi a9, -1
	TAKEN	bnei a2, 4
	NOT	bnei a2, 5
	TAKEN	blti a3, -1
	NOT	blti a2, 5
	TAKEN	bgei a2, 5
	NOT	bgei a3, 1
	TAKEN	bltui a2, 6
	NOT	bltui a3, 32768
	TAKEN	bgeui a3, 65536
	NOT	bgeui a2, 6
	TAKEN	beqz a5
	NOT	beqz a2
	TAKEN	bnez a2
	NOT	bnez a5
	TAKEN	bltz a3
	NOT	bltz a2
	TAKEN	bgez a5
	NOT	bgez a6
	TAKEN	beqz.n a5
	NOT	beqz.n a2
	TAKEN	bnez.n a2
	NOT	bnez.n a5
	/* jumps and call0-ABI calls inside the windowed program */
	j	3f
	ill
3:	LI	a10, 4f
	jx	a10
	ill
4:	mov	a15, a0		/* call0 clobbers a0, which holds main's return address */
	call0	leaf0
	LI	a11, leaf0n
	callx0	a11
	mov	a0, a15
	END_MAIN

	.align	4
leaf0:	addi	a12, a12, 3
	_ret
	.align	4
leaf0n:	addi	a13, a13, 5
	ret.n
