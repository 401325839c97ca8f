/* Array update loop: loads and stores over a 4 KiB array, 20,000 passes.
 * Exit code: low byte of the final checksum. */
static unsigned int a[1024];

int main(void)
{
	volatile unsigned int passes = 20000;
	unsigned int sum = 0;
	for (unsigned int i = 0; i < 1024; i++)
		a[i] = i;
	for (unsigned int p = 0; p < passes; p++)
		for (unsigned int i = 1; i < 1024; i++)
			a[i] = a[i] + (a[i - 1] ^ p);
	for (unsigned int i = 0; i < 1024; i++)
		sum += a[i];
	return (int)(sum & 0xff);
}
