/* Recursion through function pointers, windows spilled and refilled at every depth: each level
 * picks its callee from `step_table` by its seed, so CALLX4 (via_call4), CALLX8 (the C levels),
 * CALLX12 (via_call12), GCC's alloca (via_alloca: MOVSP) and a hand-made alloca (via_movsp)
 * follow each other in a pseudo-random order, with live values in every register of each
 * frame. Several depths, from one level to a recursion 3000 deep; with -DOVERFLOW a recursion
 * 2^30 deep, which runs off the bottom of the stack. */
#include "testio.h"

typedef unsigned int (*step_fn)(unsigned int depth, unsigned int seed);

unsigned int via_call4(unsigned int depth, unsigned int seed);
unsigned int via_call12(unsigned int depth, unsigned int seed);
unsigned int via_movsp(unsigned int depth, unsigned int seed);
static unsigned int via_call8(unsigned int depth, unsigned int seed);
static unsigned int via_alloca(unsigned int depth, unsigned int seed);

/* Read by the assembly levels too (fnptr_calls.S): the callee of a level is
 * step_table[(seed >> 16) % STEPS], its seed seed * 1103515245 + 12345. */
#define STEPS 5
step_fn step_table[STEPS] = {via_call4, via_call8, via_call12, via_alloca, via_movsp};

static volatile int sink;

static unsigned int next_seed(unsigned int seed) { return seed * 1103515245u + 12345u; }

static unsigned int step(unsigned int depth, unsigned int seed)
{
	return step_table[(seed >> 16) % STEPS](depth - 1, next_seed(seed));
}

__attribute__((noinline)) static unsigned int via_call8(unsigned int depth, unsigned int seed)
{
	if (depth == 0)
		return seed;
	unsigned int a = seed ^ depth, b = seed + 7 * depth, c = seed >> 3, d = depth * depth;
	unsigned int r = step(depth, seed);
	return r + a * 3 + (b ^ c) + d;
}

__attribute__((noinline)) static unsigned int via_alloca(unsigned int depth, unsigned int seed)
{
	if (depth == 0)
		return ~seed;
	unsigned int n = 4 + (seed & 15);
	volatile unsigned int *buf = __builtin_alloca(n * sizeof(unsigned int));
	for (unsigned int i = 0; i < n; i++)
		buf[i] = seed + i * depth;
	unsigned int r = step(depth, seed);
	unsigned int sum = 0;
	for (unsigned int i = 0; i < n; i++)
		sum = sum * 33 + buf[i];
	return r ^ sum;
}

int main(void)
{
#ifdef OVERFLOW
	static const unsigned int depths[] = {1u << 30};
#else
	static const unsigned int depths[] = {1, 2, 7, 33, 100, 500, 3000};
#endif
	unsigned int acc = 0;
	for (unsigned int k = 0; k < sizeof depths / sizeof depths[0]; k++) {
		for (unsigned int s = 0; s < STEPS; s++) {
			unsigned int r = step_table[s](depths[k], 0x9e3779b9u * (k + 1) + s);
			acc = acc * 31 + r;
		}
		put_hex("depth", depths[k]);
		put_hex("acc", acc);
	}
	sink = (int)acc;
	return 42;
}
