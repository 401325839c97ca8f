/* common.h - helpers for the per-instruction-group assembly tests (lockstep with QEMU).
 * Each test defines `main` (windowed, called by crt0 with CALL8) and returns a value in a2. */
	.macro LI reg, val		/* 32-bit constant through the literal pool */
	.literal .Lli\@, \val
	l32r	\reg, .Lli\@
	.endm

	.macro BEGIN_MAIN
	.text
	.literal_position
	.global	main
	.type	main, @function
	.align	4
main:
	entry	a1, 64
	.begin	no-transform
	.endm

	.macro END_MAIN
	.end	no-transform
	movi	a2, 0
	_retw
	.size	main, . - main
	.endm
