/* A minimal custom-op library: a start symbol, a .kernel_info_table entry and one kernel that
 * writes a per-core result (from PRID and the invocation's first argument word) as its
 * TPB_WRITE_RESPONSE. Data, relocated pointers and a bss word exercise the prelinker. */
#include <q7/platform.h>

struct kentry {
	unsigned int key_be;	/* big-endian spec << 8 | opcode */
	void *fn;		/* little-endian function VA */
};

static int scale[4] = { 3, 5, 7, 11 };
int registered;
static int *const scale_ptr = scale;
static unsigned int calls;

static void vector_kernel(void)
{
	unsigned int prid = q7_prid();
	calls++;
	Q7_MBOX_RESPONSE = Q7_MBOX_ARG(0, 0) * (unsigned int)scale_ptr[prid & 3] + prid * 1000 + calls
			   + registered * 100000;
}

/* key = spec 0x01, opcode 0x85 → 0x00000185, stored big-endian. */
__attribute__((section(".kernel_info_table"), used))
const struct kentry kernel_info_table[1] = { { 0x85010000u, (void *)vector_kernel } };

void _start(void)
{
	registered = 1;
}
