/* 100,000,000 iterations of a linear congruential generator: a tight ALU loop.
 * Exit code: low byte of the final state. */
int main(void)
{
	volatile unsigned int n = 100000000;
	unsigned int x = 1;
	for (unsigned int i = 0; i < n; i++)
		x = x * 1664525u + 1013904223u;
	return (int)(x & 0xff);
}
