/* Deep recursion: window overflow and underflow at every call depth, with live values in
 * every register of each frame; also mutual recursion through a function pointer (callx8). */
#include "testio.h"

static volatile int sink;

__attribute__((noinline)) static unsigned int deep(unsigned int n, unsigned int a, unsigned int b)
{
	unsigned int x = a * 3 + n, y = b ^ (n << 3), z = a + b + n;
	if (n == 0)
		return x ^ y ^ z;
	unsigned int r = deep(n - 1, y + 1, z + 7);
	return r + x * 5 + (y >> 2) + (z ^ 0x5a5a);
}

__attribute__((noinline)) static int odd(int n);
static int (*volatile even_ptr)(int);

__attribute__((noinline)) static int even(int n) { return n == 0 ? 1 : odd(n - 1); }
__attribute__((noinline)) static int odd(int n) { return n == 0 ? 0 : even_ptr(n - 1); }

__attribute__((noinline)) static unsigned int sum_to(unsigned int n)
{
	return n == 0 ? 0 : n + sum_to(n - 1);
}

int main(void)
{
	unsigned int acc = 0;
	even_ptr = even;
	for (unsigned int depth = 0; depth < 40; depth++)
		acc = acc * 31 + deep(depth, depth * 7, ~depth);
	put_hex("deep", acc);
	put_hex("deep300", deep(300, 1, 2));
	put_hex("even", (unsigned int)even(501) + 2 * (unsigned int)even(700));
	put_hex("sum", sum_to(1000));
	sink = (int)acc;
	return 42;
}
