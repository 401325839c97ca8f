/* stack_switch.S - running the wrapper on another stack (windowed ABI, CALL8 only).
 *
 * q7_call_on_stack(fn, new_sp, new_isl): sets SP = new_sp and the stack limits ISL and KSL to
 * new_isl, calls fn() and, on the way back (`switchBack`), restores SP, ISL and KSL before
 * returning 0. (ISL is the seed's limit; code running with PS.EXCM = 0, as kernels do, is checked
 * against KSL, so both hold it, as the firmware sets them.)
 *
 * The window handlers find a frame's saves through the 16-byte base save area below its
 * callee's SP: the caller's a0..a3 go there when the caller is spilled, and its a1 word is how
 * the handlers reach this frame's own extra save area. So that area moves with SP: it is copied
 * below new_sp before the switch (valid when the caller is already spilled; when it is still
 * live, its spill writes it there before anything reads it) and copied back before SP is
 * restored (where a spill during fn() left the caller's registers). No frame is spilled on
 * purpose; this frame's extra save area stays in its old frame.
 *
 * q7_read_isl(): the ISL special register.
 *
 * ISL is SR 248 and KSL SR 249, which the assembler has no names for: RSR/WSR at, sr are
 * op0 0, op1 3, op2 0 (RSR) or 1 (WSR), sr in bits 15:8, t = at. */
	.macro	rsr_isl at
	.byte	(\at << 4), 0xF8, 0x03
	.endm
	.macro	rsr_ksl at
	.byte	(\at << 4), 0xF9, 0x03
	.endm
	.macro	wsr_isl at
	.byte	(\at << 4), 0xF8, 0x13
	.endm
	.macro	wsr_ksl at
	.byte	(\at << 4), 0xF9, 0x13
	.endm

	.text
	.literal_position

	.align	4
	.global	q7_call_on_stack
	.hidden	q7_call_on_stack
	.type	q7_call_on_stack, @function
q7_call_on_stack:
	entry	a1, 32
	mov	a5, a2			/* fn */
	addi	a6, a1, -16		/* old base save area */
	addi	a7, a3, -16		/* new base save area */
	l32i	a10, a6, 0
	s32i	a10, a7, 0
	l32i	a10, a6, 4
	s32i	a10, a7, 4
	l32i	a10, a6, 8
	s32i	a10, a7, 8
	l32i	a10, a6, 12
	s32i	a10, a7, 12
	rsr_isl	2			/* a2 = old ISL */
	memw
	mov	a1, a3
	rsr_ksl	3			/* a3 = old KSL */
	wsr_isl	4
	wsr_ksl	4
	rsync
	callx8	a5
	.global	switchBack
	.hidden	switchBack
switchBack:
	l32i	a10, a7, 0
	s32i	a10, a6, 0
	l32i	a10, a7, 4
	s32i	a10, a6, 4
	l32i	a10, a7, 8
	s32i	a10, a6, 8
	l32i	a10, a7, 12
	s32i	a10, a6, 12
	memw
	addi	a1, a6, 16
	wsr_isl	2
	wsr_ksl	3
	rsync
	movi	a2, 0
	retw
	.size	q7_call_on_stack, . - q7_call_on_stack

	.align	4
	.global	q7_read_isl
	.hidden	q7_read_isl
	.type	q7_read_isl, @function
q7_read_isl:
	entry	a1, 32
	rsr_isl	2
	retw
	.size	q7_read_isl, . - q7_read_isl
