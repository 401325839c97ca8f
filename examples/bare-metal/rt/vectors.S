/* vectors.S - exception vectors for the dc233c core.
 *
 * Offsets are relative to VECBASE (set to _vector_base by crt0.S) and come
 * from QEMU's target/xtensa/core-dc233c/core-isa.h. The window overflow /
 * underflow handlers are the standard sequences of the Xtensa ISA:
 *   OverflowN: WINDOWBASE points at the oldest live frame F; store F's
 *     a0-a3 at [callee sp - 16] (callee sp = F's a5/a9/a13), and for call8/12
 *     frames a4-a7 / a4-a11 below F's caller's sp (read from [F's sp - 12]).
 *   UnderflowN: the reverse, then rfwu.
 * Any other exception (kernel, user, double) prints EXCCAUSE/EPC1/EXCVADDR
 * on stderr and ends the simulation through semihosting with exit code
 * 0x100 + EXCCAUSE (needs QEMU -semihosting).
 * Interrupts are never enabled (INTENABLE=0), so the level-2..7 vectors are
 * left empty.
 */
/* message buffer of _fatal_exception */
	.data
.Lmsg:	.ascii	"\nqemu-rt: unhandled exception EXCCAUSE="
.Lmsg_cause:
	.ascii	"XXXXXXXX EPC1="
.Lmsg_epc:
	.ascii	"XXXXXXXX EXCVADDR="
.Lmsg_vaddr:
	.ascii	"XXXXXXXX\n"
.Lmsg_end:

	.section .vectors, "ax"
	.begin	no-transform
	.global	_vector_base
_vector_base:

	.org	0x000
_WindowOverflow4:
	s32e	a0, a5, -16
	s32e	a1, a5, -12
	s32e	a2, a5, -8
	s32e	a3, a5, -4
	rfwo

	.org	0x040
_WindowUnderflow4:
	l32e	a0, a5, -16
	l32e	a1, a5, -12
	l32e	a2, a5, -8
	l32e	a3, a5, -4
	rfwu

	.org	0x080
_WindowOverflow8:
	s32e	a0, a9, -16
	l32e	a0, a1, -12		/* a0 = F's caller's sp */
	s32e	a2, a9, -8
	s32e	a1, a9, -12
	s32e	a3, a9, -4
	s32e	a4, a0, -32
	s32e	a5, a0, -28
	s32e	a6, a0, -24
	s32e	a7, a0, -20
	rfwo

	.org	0x0c0
_WindowUnderflow8:
	l32e	a0, a9, -16
	l32e	a1, a9, -12
	l32e	a2, a9, -8
	l32e	a7, a1, -12		/* a7 = F's caller's sp */
	l32e	a3, a9, -4
	l32e	a4, a7, -32
	l32e	a5, a7, -28
	l32e	a6, a7, -24
	l32e	a7, a7, -20
	rfwu

	.org	0x100
_WindowOverflow12:
	s32e	a0, a13, -16
	l32e	a0, a1, -12		/* a0 = F's caller's sp */
	s32e	a1, a13, -12
	s32e	a2, a13, -8
	s32e	a3, a13, -4
	s32e	a4, a0, -48
	s32e	a5, a0, -44
	s32e	a6, a0, -40
	s32e	a7, a0, -36
	s32e	a8, a0, -32
	s32e	a9, a0, -28
	s32e	a10, a0, -24
	s32e	a11, a0, -20
	rfwo

	.org	0x140
_WindowUnderflow12:
	l32e	a0, a13, -16
	l32e	a1, a13, -12
	l32e	a2, a13, -8
	l32e	a11, a1, -12		/* a11 = F's caller's sp */
	l32e	a3, a13, -4
	l32e	a4, a11, -48
	l32e	a5, a11, -44
	l32e	a6, a11, -40
	l32e	a7, a11, -36
	l32e	a8, a11, -32
	l32e	a9, a11, -28
	l32e	a10, a11, -24
	l32e	a11, a11, -20
	rfwu

	.org	0x300			/* PS.UM=0 */
_KernelExceptionVector:
	j	_fatal_exception

	.org	0x340			/* PS.UM=1 (crt0 sets it) */
_UserExceptionVector:
	j	_fatal_exception

	.org	0x3c0
_DoubleExceptionVector:
	j	_fatal_exception

	.org	0x400
/* Print "qemu-rt: unhandled exception EXCCAUSE=.. EPC1=.. EXCVADDR=.." to
 * stderr, then exit(0x100 + EXCCAUSE). Uses only absolute addresses (sp may
 * be bad) and no calls (window exceptions must not nest). */
	.macro	HEX8 val, dst		/* write \val as 8 hex digits at \dst; clobbers a5-a7 */
	movi	a5, 8
1:	extui	a6, \val, 28, 4
	slli	\val, \val, 4
	addi	a7, a6, -10
	bltz	a7, 2f
	addi	a6, a6, 'a' - '0' - 10
2:	addi	a6, a6, '0'
	s8i	a6, \dst, 0
	addi	\dst, \dst, 1
	addi	a5, a5, -1
	bnez	a5, 1b
	.endm
	.align	4			/* literals for l32r (no-transform: no movi of symbols) */
.Lp_cause:	.word	.Lmsg_cause
.Lp_epc:	.word	.Lmsg_epc
.Lp_vaddr:	.word	.Lmsg_vaddr
.Lp_msg:	.word	.Lmsg
.Lp_end:	.word	.Lmsg_end
_fatal_exception:
	l32r	a4, .Lp_cause
	rsr.exccause a2
	HEX8	a2, a4
	l32r	a4, .Lp_epc
	rsr.epc1 a2
	HEX8	a2, a4
	l32r	a4, .Lp_vaddr
	rsr.excvaddr a2
	HEX8	a2, a4
	movi	a2, 4			/* semihosting SYS_write(2, msg, len) */
	movi	a3, 2
	l32r	a4, .Lp_msg
	l32r	a5, .Lp_end
	sub	a5, a5, a4		/* length */
	simcall
	rsr.exccause a3
	addmi	a3, a3, 0x100		/* exit code 0x100 + EXCCAUSE */
	movi	a2, 1			/* semihosting SYS_exit(a3) */
	simcall
1:	j	1b
	.end	no-transform

