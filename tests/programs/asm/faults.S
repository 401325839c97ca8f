#include "common.h"
	/* One fault per build (select with -DFAULT=n): the runtime's vectors print EXCCAUSE, EPC1
	 * and EXCVADDR and exit with 0x100 + EXCCAUSE, on QEMU and q7emu alike. */
	.data
	.align	4
fbuf:	.word	1, 2, 3
	BEGIN_MAIN
	LI	a2, fbuf
	movi	a3, 0
#if FAULT == 1
	syscall
#elif FAULT == 2
	ill
#elif FAULT == 3
	ill.n
#elif FAULT == 4
	quos	a4, a2, a3
#elif FAULT == 5
	remu	a4, a2, a3
#elif FAULT == 6
	l32i	a4, a2, 1 * 4
	addi	a5, a2, 2
	l32i	a4, a5, 0
#elif FAULT == 7
	addi	a5, a2, 1
	s16i	a3, a5, 0
#elif FAULT == 8
	/* MOVSP with the caller's frame spilled: force the spill with a deep call chain */
	movi	a10, 12
	call8	spill_then_movsp
#endif
	END_MAIN

	.align	4
spill_then_movsp:
	entry	a1, 48
	beqz	a2, 1f
	addi	a10, a2, -1
	call8	spill_then_movsp
	retw
1:	rsr.windowstart a3		/* clear every other frame's WINDOWSTART bit: caller spilled */
	movi	a4, 1
	rsr.windowbase a5
	ssl	a5
	sll	a4, a4
	movi	a6, 0
	wsr.windowstart a4
	rsync
	mov	a7, a1
	movsp	a1, a7
	retw
