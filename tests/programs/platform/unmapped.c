/* Unmapped accesses fault naming the address (-DCASE=n): 1 load from a hole in the map,
 * 2 store through a disabled translate window, 3 a jump into unmapped memory, 4 a jump into
 * IRAM past the program, 5 a jump into translate window 0, where no image is loaded. */
#include <q7/platform.h>

int main(void)
{
#if CASE == 1
	return (int)*(volatile unsigned int *)0x00400000u;
#elif CASE == 2
	*(volatile unsigned int *)(Q7_XLATE_BASE + 3 * Q7_WINDOW_SIZE + 0x40) = 1;
	return 0;
#elif CASE == 4
	void (*volatile f)(void) = (void (*)(void))0x0000f000u;
	f();
	return 0;
#elif CASE == 5
	void (*volatile f)(void) = (void (*)(void))(Q7_XLATE_BASE + 0x100);
	f();
	return 0;
#else
	void (*volatile f)(void) = (void (*)(void))0x10000000u;
	f();
	return 0;
#endif
}
