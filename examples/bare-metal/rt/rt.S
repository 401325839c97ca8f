/* rt.S - windowed-ABI integer helpers for the lx106-configured gcc.
 *
 * Debian's gcc-xtensa-lx106 has no DIV32 in its code generator and calls
 * __divsi3 & co. for '/' and '%'; its libgcc.a is call0 ABI and must not be
 * linked into windowed code (always use -nostdlib). These versions use the
 * dc233c DIV32/MUL32 instructions. Not provided: 64-bit helpers (__divdi3,
 * __muldi3, __ashldi3, ...), atomics, memcpy/memset. */
	.text

	.macro	WFUNC name, insn
	.global	\name
	.type	\name, @function
	.align	4
\name:
	entry	a1, 32
	\insn	a2, a2, a3
	retw
	.size	\name, . - \name
	.endm

	WFUNC	__divsi3, quos		/* signed a2 / a3 */
	WFUNC	__udivsi3, quou		/* unsigned a2 / a3 */
	WFUNC	__modsi3, rems		/* signed a2 % a3 */
	WFUNC	__umodsi3, remu		/* unsigned a2 % a3 */
	WFUNC	__mulsi3, mull		/* a2 * a3 (low 32 bits) */
