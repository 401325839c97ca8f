/* semihost.h - QEMU xtensa semihosting (run QEMU with -semihosting).
 * SIMCALL: a2 = call number, a3..a6 = arguments; result in a2, errno in a3.
 * Numbers from QEMU target/xtensa/xtensa-semi.c. With "-serial none" writes
 * to fd 1/2 appear on QEMU's stdout; SYS_exit's argument is QEMU's exit status. */
#ifndef QEMU_RT_SEMIHOST_H
#define QEMU_RT_SEMIHOST_H

#define SEMI_SYS_exit  1
#define SEMI_SYS_write 4

static inline int semi_call3(int nr, int a, int b, int c)
{
	register int a2 __asm__("a2") = nr;
	register int a3 __asm__("a3") = a;
	register int a4 __asm__("a4") = b;
	register int a5 __asm__("a5") = c;
	__asm__ volatile("simcall" : "+r"(a2), "+r"(a3) : "r"(a4), "r"(a5) : "memory");
	return a2;
}

static inline int xt_write(int fd, const void *buf, int len)
{
	return semi_call3(SEMI_SYS_write, fd, (int)buf, len);
}

static inline __attribute__((noreturn)) void xt_exit(int code)
{
	semi_call3(SEMI_SYS_exit, code, 0, 0);
	for (;;)
		;
}

#endif
