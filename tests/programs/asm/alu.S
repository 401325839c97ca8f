#include "common.h"
	BEGIN_MAIN
	LI	a2, 0x7fffffff
	LI	a3, 0x80000001
	add	a4, a2, a3
	add.n	a5, a4, a2
	addx2	a6, a3, a2
	addx4	a7, a3, a4
	addx8	a8, a2, a3
	sub	a9, a2, a3
	subx2	a10, a3, a2
	subx4	a11, a2, a5
	subx8	a12, a4, a2
	and	a13, a2, a3
	or	a14, a2, a3
	xor	a15, a2, a3
	neg	a4, a3
	neg	a5, a2
	abs	a6, a3
	LI	a7, 0x80000000
	abs	a8, a7
	neg	a9, a7
	addi	a10, a2, -128
	addi	a11, a2, 127
	addi.n	a12, a3, -1
	addi.n	a13, a3, 15
	addmi	a14, a2, -32768
	addmi	a15, a3, 32512
	movi	a4, -2048
	movi	a5, 2047
	movi.n	a6, -32
	movi.n	a7, 95
	mov.n	a8, a7
	movi	a9, 0
	moveqz	a10, a2, a9
	moveqz	a11, a3, a2
	movnez	a12, a2, a9
	movnez	a13, a3, a2
	movltz	a14, a2, a3
	movltz	a15, a3, a2
	movgez	a4, a2, a3
	movgez	a5, a3, a9
	nop
	nop.n
	END_MAIN
