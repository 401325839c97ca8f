/* The assembly levels of fnptr_recursion.c: windowed functions of the C ABI (depth in a2, seed
 * in a3, result in a2) that call the next level through step_table with CALLX4 and CALLX12,
 * and one that allocates its own stack space with MOVSP, keeping values live across the call
 * in the registers a window spill must save. */
	.text
	.literal_position
	.literal .Ltable, step_table
	.literal .Lmul, 1103515245
	.literal .Ladd, 12345

/* The next level of (a2 = depth, a3 = seed): its address in \fn, its depth in \d, its seed in
 * \s; clobbers \t. */
	.macro	NEXT fn, d, s, t
	l32r	\t, .Lmul
	mull	\s, a3, \t
	l32r	\t, .Ladd
	add	\s, \s, \t
	extui	\t, a3, 16, 16
	movi	\fn, 5
	remu	\t, \t, \fn
	l32r	\fn, .Ltable
	addx4	\fn, \t, \fn
	l32i	\fn, \fn, 0
	addi	\d, a2, -1
	.endm

	.align	4
	.global	via_call4
	.type	via_call4, @function
via_call4:
	entry	a1, 32
	beqz	a2, 1f
	NEXT	a5, a6, a7, a4
	mov	a4, a3			/* a4 is not the callee's: CALL4 rotates by 4 */
	callx4	a5
	xor	a2, a6, a4
	addi	a2, a2, 4
	retw
1:	addi	a2, a3, 1
	retw
	.size	via_call4, . - via_call4

	.align	4
	.global	via_call12
	.type	via_call12, @function
via_call12:
	entry	a1, 64
	beqz	a2, 1f
	NEXT	a13, a14, a15, a12
	mov	a4, a2			/* a4..a11 live across the call: a call12 frame spills them */
	mov	a5, a3
	addi	a6, a2, 6
	xor	a7, a3, a2
	slli	a8, a2, 3
	srli	a9, a3, 5
	movi	a10, 0x5a
	add	a11, a2, a3
	callx12	a13
	add	a2, a14, a4
	xor	a2, a2, a5
	add	a2, a2, a6
	xor	a2, a2, a7
	add	a2, a2, a8
	xor	a2, a2, a9
	add	a2, a2, a10
	xor	a2, a2, a11
	retw
1:	movi	a2, 12
	xor	a2, a2, a3
	retw
	.size	via_call12, . - via_call12

	.align	4
	.global	via_movsp
	.type	via_movsp, @function
via_movsp:
	entry	a1, 48
	beqz	a2, 1f
	/* alloca of 16 + (seed & 0x30) bytes: the new SP, then MOVSP moves the base save area */
	extui	a4, a3, 4, 2
	slli	a4, a4, 4
	addi	a4, a4, 16
	sub	a5, a1, a4
	movsp	a1, a5
	s32i	a3, a1, 0		/* the block lies from the new SP up */
	s32i	a2, a1, 4
	NEXT	a9, a10, a11, a8
	mov	a6, a4
	callx8	a9
	l32i	a4, a1, 0
	l32i	a5, a1, 4
	xor	a2, a10, a4
	add	a2, a2, a5
	add	a2, a2, a6
	retw
1:	addi	a2, a3, -5
	retw
	.size	via_movsp, . - via_movsp
