/* fib(32) by naive recursion: call/return and window spill heavy. Exit code: fib(32) & 0xff. */
__attribute__((noinline)) static unsigned int fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	return (int)(fib(32) & 0xff);
}
