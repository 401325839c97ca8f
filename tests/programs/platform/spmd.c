/* Eight cores, SPMD: each writes a PRID-derived pattern into its own 4 KiB slice of an HBM
 * buffer through translate window 2 (buffer address in the mailbox), with recursion deep enough
 * to spill register windows, then exits with its PRID. */
#include <q7/platform.h>

static unsigned int mix(unsigned int x, unsigned int depth)
{
	return depth == 0 ? x * 2654435761u : mix(x ^ (x >> 7), depth - 1) + depth;
}

int main(void)
{
	unsigned int prid = q7_prid();
	unsigned int lo = Q7_MBOX_ARG(0, 0);
	Q7_MEM_WINDOW_BASE_LO(2) = lo & ~(Q7_WINDOW_SIZE - 1);
	Q7_MEM_WINDOW_BASE_HI(2) = Q7_MBOX_ARG(0, 1);
	Q7_MEM_WINDOW_CTRL(2) = 1;
	volatile unsigned int *slice = (volatile unsigned int *)(Q7_XLATE_BASE + 2 * Q7_WINDOW_SIZE + (lo & (Q7_WINDOW_SIZE - 1)) + prid * 4096);
	for (unsigned int i = 0; i < 1024; i++)
		slice[i] = mix(prid * 1024 + i, 12 + prid);
	return (int)prid;
}
