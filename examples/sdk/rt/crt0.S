/* crt0.S - start-up for programs run on the emulated POOL cluster (PLATFORM.md): code in IRAM
 * (see platform-iram.ld), data and stack in the firmware band. Sets up the register windows
 * and PS, zeroes .bss, calls main with CALL8 and ends through semihosting exit(main's value).
 * VECBASE stays 0: the emulator's boot ROM there handles window overflow and underflow. */
	.text
	.literal_position
	.global	_start
	.type	_start, @function
	.align	4
_start:
	movi	a0, 0
	wsr.windowbase a0
	rsync
	movi	a0, 1
	wsr.windowstart a0
	rsync
	/* The outermost frame: SP 32 bytes below the top, and the word at SP - 12 pointing at the
	 * top, where the overflow handler spills this frame's a4..a7 when calls nest deeper than
	 * the register file (PLATFORM.md "Runtime memory"). */
	movi	a2, _stack_top
	addi	a1, a2, -32
	addi	a3, a1, -12
	s32i	a2, a3, 0
	movi	a2, _bss_start
	movi	a3, _bss_end
	movi	a4, 0
1:	bgeu	a2, a3, 2f
	s32i	a4, a2, 0
	addi	a2, a2, 4
	j	1b
2:	movi	a0, 0x40000		/* PS: WOE = 1, EXCM = 0, UM = 0 */
	wsr.ps	a0
	rsync
	movi	a0, 0
	call8	main
	mov	a3, a10
	movi	a2, 1			/* semihosting exit(a3) */
	simcall
3:	j	3b
	.size	_start, . - _start
