/* A custom-op library whose kernel misbehaves on request (first argument word): 1 spins forever
 * on core 3, 2 stores to an unmapped address on core 5, 3 prints "bye" and makes a semihosting
 * exit (status 3) on core 6, 4 returns without a response on core 2; anything else answers
 * PRID + 1. */
#include <q7/platform.h>

struct kentry {
	unsigned int key_be;
	void *fn;
};

static void kernel(void)
{
	unsigned int prid = q7_prid();
	unsigned int mode = Q7_MBOX_ARG(0, 0);
	if (mode == 1 && prid == 3)
		for (;;)
			__asm__ volatile("");
	if (mode == 2 && prid == 5)
		*(volatile unsigned int *)0x00400000u = 1;
	if (mode == 3 && prid == 6) {
		const char *s = "bye\n";
		while (*s)
			Q7_CONSOLE_PUTC = (unsigned int)*s++;
		__asm__ volatile("movi a2, 1\n\tmovi a3, 3\n\tsimcall" ::: "a2", "a3", "memory");
	}
	if (mode == 4 && prid == 2)
		return;
	Q7_MBOX_RESPONSE = prid + 1;
}

/* key = spec 0x02, opcode 0x85 → 0x00000285, stored big-endian. */
__attribute__((section(".kernel_info_table"), used))
const struct kentry kernel_info_table[1] = { { 0x85020000u, (void *)kernel } };

void _start(void)
{
}
