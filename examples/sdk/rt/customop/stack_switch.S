/* stack_switch.S - running the wrapper on another stack (windowed ABI, CALL8 only).
 *
 * q7_call_on_stack(fn, new_sp, new_isl): spills every register window older than its own frame
 * (a chain of eight nested CALL8 frames wraps the 64-register file), copies its caller's base save
 * area (the 16 bytes below its SP, which the overflow handlers read to find the caller's SP) to
 * below new_sp, sets SP = new_sp and ISL = new_isl, calls fn() and, on the way back
 * (`switchBack`), restores ISL and SP before returning. Frames older than this one stay spilled
 * on the old stack; this frame's own extra save area stays in its old frame, found through the
 * copied base save area.
 *
 * q7_read_isl(): the ISL special register (SR 248, which the assembler has no name for). */

/* RSR/WSR at, 248 — op0 0, op1 3, op2 0 (RSR) or 1 (WSR), sr 0xF8, t = at. */
	.macro	rsr_isl at
	.byte	(\at << 4), 0xF8, 0x03
	.endm
	.macro	wsr_isl at
	.byte	(\at << 4), 0xF8, 0x13
	.endm

	.text
	.literal_position

	.align	4
	.type	q7_spill_chain, @function
/* q7_spill_chain(depth): depth nested CALL8 frames, so every older window is spilled. */
q7_spill_chain:
	entry	a1, 32
	beqz	a2, 1f
	addi	a10, a2, -1
	call8	q7_spill_chain
1:	retw
	.size	q7_spill_chain, . - q7_spill_chain

	.align	4
	.global	q7_call_on_stack
	.hidden	q7_call_on_stack
	.type	q7_call_on_stack, @function
q7_call_on_stack:
	entry	a1, 32
	mov	a5, a2			/* fn */
	mov	a6, a3			/* new SP */
	mov	a7, a4			/* new ISL */
	movi	a10, 8
	call8	q7_spill_chain
	/* The caller's a0..a3 are now in [SP - 16, SP): copy them below the new SP. */
	addi	a8, a1, -16
	addi	a9, a6, -16
	l32i	a10, a8, 0
	s32i	a10, a9, 0
	l32i	a10, a8, 4
	s32i	a10, a9, 4
	l32i	a10, a8, 8
	s32i	a10, a9, 8
	l32i	a10, a8, 12
	s32i	a10, a9, 12
	rsr_isl	4			/* a4 = old ISL */
	mov	a2, a1			/* a2 = old SP */
	memw
	mov	a1, a6
	wsr_isl	7
	rsync
	callx8	a5
	.global	switchBack
	.hidden	switchBack
switchBack:
	mov	a1, a2
	wsr_isl	4
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
