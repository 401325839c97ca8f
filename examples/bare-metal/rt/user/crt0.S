/* user/crt0.S - startup for qemu-xtensa (linux-user mode), windowed ABI, CALL8 only: builds the
 * same C programs as the bare-metal runtime for comparison with QEMU's user mode.
 *
 * QEMU starts at the ELF entry point with WINDOWBASE=0, WINDOWSTART=1, PS.WOE=1 and a1 = the
 * initial stack; window overflow/underflow are handled inside QEMU; .bss is zeroed by the
 * loader. main's return value becomes the exit_group status. */
	.text
	.literal_position
	.global	_start
	.type	_start, @function
	.align	4
_start:
	movi	a0, 0
	movi	a2, -16
	and	a1, a1, a2		/* 16-byte aligned sp */
	call8	main			/* main's a2 (return value) is our a10 */
	mov	a6, a10
	movi	a2, 119			/* exit_group(a6) */
	syscall
1:	j	1b
	.size	_start, . - _start
