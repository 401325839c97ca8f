/* Console: write more than the ring holds; the ring keeps the newest bytes. */
#include <q7/platform.h>

int main(void)
{
	for (unsigned int i = 0; i < 5000; i++)
		Q7_CONSOLE_PUTC = 'a' + i % 26;
	const char *tail = "<end>";
	while (*tail)
		Q7_CONSOLE_PUTC = (unsigned int)*tail++;
	return 0;
}
