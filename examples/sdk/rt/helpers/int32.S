/* int32.S - 32-bit divide, modulo and multiply (windowed ABI) on the DIV32 and MUL32
 * instructions, which ncore2gp and dc233c both have. GCC calls these for '/' and '%' (its
 * lx106 code generator does not emit DIV32) and, with some options, for '*'. Division by zero
 * raises IntegerDivideByZero at the QUOS/QUOU/REMS/REMU; INT_MIN / -1 is INT_MIN, remainder 0. */
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
