/* One SDMA error per build (-DCASE=n): 1 malformed descriptor (length 0), 2 DATARAM address out
 * of range, 3 HBM address out of range, 4 ring overflow, 5 wait beyond what was queued. Each
 * stops the core with a report naming the queue and descriptor. */
#include <q7/platform.h>

#define RING ((volatile struct q7_sdma_desc *)0x00080000u)

int main(void)
{
	Q7_SDMA_RING_BASE(Q7_SDMA_M2S) = 0x00080000u;
	Q7_SDMA_RING_SIZE(Q7_SDMA_M2S) = 2;
	for (unsigned int i = 0; i < 2; i++) {
		RING[i].hbm_lo = 0x02000000u;
		RING[i].hbm_hi = 0;
		RING[i].local = 0x00081000u;
		RING[i].len = 64;
	}
#if CASE == 1
	RING[1].len = 0;
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 2;
#elif CASE == 2
	RING[0].local = 0x0008ff80u;
	RING[0].len = 256;
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 1;
#elif CASE == 3
	RING[0].hbm_hi = 0x10;
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 1;
#elif CASE == 4
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 3;
#elif CASE == 5
	Q7_SDMA_DOORBELL(Q7_SDMA_M2S) = 1;
	Q7_SDMA_WAIT(Q7_SDMA_M2S) = 2;
#endif
	return 0;
}
