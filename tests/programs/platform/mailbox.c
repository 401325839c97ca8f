/* Mailbox: read the invocation (opcode, sub-opcode, argument count, every word of every
 * ARG_TENSOR descriptor), write the response, and exit with a checksum of what was read. */
#include <q7/platform.h>

int main(void)
{
	unsigned int h = Q7_MBOX_OPCODE * 31 + Q7_MBOX_SUB_OPCODE;
	unsigned int n = Q7_MBOX_NARGS;
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int w = 0; w < 12; w++)
			h = h * 33 + Q7_MBOX_ARG(i, w);
	if (Q7_MBOX_RESPONSE_VALID != 0)
		return 255;
	Q7_MBOX_RESPONSE = h;
	return (int)(h & 0x7f) + (Q7_MBOX_RESPONSE_VALID == 1 ? 0 : 128);
}
