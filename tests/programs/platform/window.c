/* Translate windows: program window 2 onto an HBM buffer through the MEM_WINDOW CSRs (two memw
 * fences around the MMIO store, as the runtime does), write and read HBM through it, and read
 * back the window registers. Exit code: 0 on success, else the failing step. The HBM buffer
 * address comes from the mailbox (word 0 of argument 0 = low half, word 1 = high half). */
#include <q7/platform.h>

int main(void)
{
	unsigned int lo = Q7_MBOX_ARG(0, 0), hi = Q7_MBOX_ARG(0, 1);
	__asm__ volatile("memw");
	Q7_MEM_WINDOW_BASE_LO(2) = lo & ~(Q7_WINDOW_SIZE - 1);
	Q7_MEM_WINDOW_BASE_HI(2) = hi;
	Q7_MEM_WINDOW_CTRL(2) = 1;
	__asm__ volatile("memw");
	volatile unsigned int *p = (volatile unsigned int *)(Q7_XLATE_BASE + 2 * Q7_WINDOW_SIZE + (lo & (Q7_WINDOW_SIZE - 1)));
	for (unsigned int i = 0; i < 16; i++)
		p[i] = 0xc0de0000u + i * 3;
	unsigned int sum = 0;
	for (unsigned int i = 0; i < 16; i++)
		sum += p[i];
	if (sum != 16 * 0xc0de0000u + 3 * 120)
		return 1;
	volatile unsigned short *h = (volatile unsigned short *)p;
	if (h[1] != 0xc0de)
		return 2;
	if (Q7_MEM_WINDOW_CTRL(2) != 1 || Q7_MEM_WINDOW_BASE_HI(2) != hi)
		return 3;
	return 0;
}
