/* SDMA in both directions with several descriptors and completion polling: M2S copies three
 * HBM chunks into DATARAM, the core adds 1 to every word, S2M copies the result to a second HBM
 * buffer. The mailbox carries the two HBM addresses (args 0 and 1, low words). Exit code 0 on
 * success; the host checks HBM and the cycle counts. */
#include <q7/platform.h>

#define RING ((volatile struct q7_sdma_desc *)0x00080000u)
#define RING2 ((volatile struct q7_sdma_desc *)0x00080100u)
#define BUF ((volatile unsigned int *)0x00081000u)

int main(void)
{
	unsigned int src = Q7_MBOX_ARG(0, 0), dst = Q7_MBOX_ARG(1, 0);
	Q7_SDMA_RING_BASE(Q7_SDMA_M2S) = 0x00080000u;
	Q7_SDMA_RING_SIZE(Q7_SDMA_M2S) = 4;
	for (unsigned int i = 0; i < 3; i++) {
		RING[i].hbm_lo = src + i * 1024;
		RING[i].hbm_hi = 0;
		RING[i].local = 0x00081000u + i * 1024;
		RING[i].len = 1024;
	}
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 3;
	unsigned int polls = 0;
	while (Q7_SDMA_COMPLETED(Q7_SDMA_M2S) < 1)	/* poll the first completion */
		polls++;
	Q7_SDMA_WAIT(Q7_SDMA_M2S) = 3;			/* then wait for all three */
	if (Q7_SDMA_COMPLETED(Q7_SDMA_M2S) != 3)
		return 1;
	for (unsigned int i = 0; i < 768; i++)
		BUF[i] = BUF[i] + 1;
	Q7_SDMA_RING_BASE(Q7_SDMA_S2M) = 0x00080100u;
	Q7_SDMA_RING_SIZE(Q7_SDMA_S2M) = 2;
	RING2[0].hbm_lo = dst;
	RING2[0].hbm_hi = 0;
	RING2[0].local = 0x00081000u;
	RING2[0].len = 2048;
	RING2[1].hbm_lo = dst + 2048;
	RING2[1].hbm_hi = 0;
	RING2[1].local = 0x00081800u;
	RING2[1].len = 1024;
	Q7_SDMA_DOORBELL(Q7_SDMA_S2M) = 2;
	Q7_SDMA_WAIT(Q7_SDMA_S2M) = 2;
	return polls == 0 ? 2 : 0;
}
