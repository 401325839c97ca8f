/* crt0.S - bare-metal startup for q7emu run-elf and qemu-system-xtensa -M sim -cpu dc233c
 * (windowed ABI, CALL8 only, so the same program runs on the ncore2gp and dc233c profiles).
 *
 * The sim machine loads the ELF, then resets the CPU: execution starts at the
 * reset vector 0xFE000000 (the ELF entry point is ignored) with PS=0x1f
 * (EXCM=1, INTLEVEL=15, WOE=0), WINDOWBASE=0, WINDOWSTART=0, VECBASE=0x2000.
 */

/* Reset vector, placed at 0xFE000000 by link.ld: jump to _start. */
	.section .reset, "ax"
	.begin	no-transform
	.global	_reset
_reset:
	j	1f
	.align	4
2:	.word	_start
1:	l32r	a0, 2b
	jx	a0
	.end	no-transform

	.text
	.literal_position
	.global	_start
	.type	_start, @function
	.align	4
_start:
	rsr.prid a2			/* with -smp N every CPU starts here: */
	bnez	a2, .Lpark		/* only CPU 0 runs main */

	movi	a0, _vector_base	/* vectors.S */
	wsr.vecbase a0
	movi	a0, 0
	wsr.windowbase a0		/* WINDOWBASE = 0 */
	rsync
	movi	a0, 1
	wsr.windowstart a0		/* WINDOWSTART = 1: only this frame is live */
	rsync
	movi	a1, _stack_top		/* sp (16-byte aligned, link.ld) */

	movi	a2, _bss_start		/* zero .bss (word aligned, link.ld) */
	movi	a3, _bss_end
	movi	a4, 0
1:	bgeu	a2, a3, 2f
	s32i	a4, a2, 0
	addi	a2, a2, 4
	j	1b
2:
	movi	a0, 0x40020		/* PS: WOE=1 (window exceptions on), UM=1 */
	wsr.ps	a0			/* (user vector), EXCM=0, INTLEVEL=0 */
	rsync

	movi	a0, 0
	call8	main			/* main's a2 (return value) is our a10 */
	mov	a2, a10			/* a2..a7 survive CALL8 */
	call8	__q7_memsum		/* print a checksum of data, bss and the stack top */
	mov	a3, a2
	movi	a2, 1			/* semihosting SYS_exit(a3) */
	simcall
.Lpark:
	waiti	15
	j	.Lpark
	.size	_start, . - _start
