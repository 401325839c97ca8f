/* The runtime's stack switch (examples/sdk/rt/customop/stack_switch.S) on the emulated core: a
 * caller `depth` frames deep runs a callee on a stack in HBM, reached through translate window 2
 * programmed onto the mailbox's buffer. The callee recurses `calls` frames deep there: 0 keeps
 * every caller frame live in the register file for the whole call, 200 spills them all while on
 * the new stack (window overflows there, underflows back). The callee sees SP inside the new
 * stack and ISL at its limit; back on the old stack every caller frame still holds its values,
 * SP, ISL and KSL are as before. Exit code 0, else the failing step. The HBM buffer address
 * comes from the mailbox (argument 0, words 0 and 1); its size is 64 KiB. Built with -DOVERFLOW,
 * the callee recurses 5000 frames deep and must stop at the new stack's limit (KSL, the limit
 * checked with PS.EXCM = 0). */
#include <q7/platform.h>

unsigned int q7_call_on_stack(unsigned int fn, unsigned int new_sp, unsigned int new_isl);
unsigned int q7_read_isl(void);

static unsigned int read_ksl(void)
{
	unsigned int v;
	__asm__ volatile(".byte 0x20, 0xF9, 0x03\n\tmov %0, a2" : "=a"(v) : : "a2");
	return v;
}

#define STACK_BYTES 0x10000u

static unsigned int new_bottom, new_top;
static volatile unsigned int callee_sp_min = 0xFFFFFFFFu, callee_sp_max, callee_isl, callee_result;

static unsigned int sp_now(void)
{
	unsigned int sp;
	__asm__ volatile("mov %0, a1" : "=a"(sp));
	return sp;
}

/* Deep recursion with live locals in every frame. */
static unsigned int __attribute__((noinline)) deep(unsigned int n, unsigned int salt)
{
	volatile unsigned int local[4] = {n, n * 3u, salt, n ^ salt};
	unsigned int sp = sp_now();
	if (sp < callee_sp_min)
		callee_sp_min = sp;
	if (sp > callee_sp_max)
		callee_sp_max = sp;
	unsigned int below = n ? deep(n - 1, salt * 33u + n) : 7u;
	if (local[0] != n || local[1] != n * 3u || local[2] != salt || local[3] != (n ^ salt))
		return 0xBAD;
	return below + local[0] + (local[2] & 0xFFu);
}

static unsigned int calls;

static void callee(void)
{
	callee_isl = q7_read_isl() == read_ksl() ? q7_read_isl() : 0;
	callee_result = deep(calls, 5);
}

static unsigned int expected_deep(unsigned int n, unsigned int salt)
{
	return (n ? expected_deep(n - 1, salt * 33u + n) : 7u) + n + (salt & 0xFFu);
}

static int status;

/* The caller: `depth` frames, each checking its locals after the switch returned. */
static unsigned int __attribute__((noinline)) caller(unsigned int depth)
{
	volatile unsigned int mine[3] = {depth * 7u, depth + 100u, 0xC0DE0000u | depth};
	if (depth == 0) {
		unsigned int sp_before = sp_now(), isl_before = q7_read_isl(), ksl_before = read_ksl();
		unsigned int r = q7_call_on_stack((unsigned int)callee, new_top, new_bottom + 64);
		if (r != 0)
			status = 10;
		else if (sp_now() != sp_before)
			status = 11;
		else if (q7_read_isl() != isl_before || read_ksl() != ksl_before)
			status = 12;
	} else {
		caller(depth - 1);
	}
	if (mine[0] != depth * 7u || mine[1] != depth + 100u || mine[2] != (0xC0DE0000u | depth))
		status = 20;
	return mine[0] + mine[1];
}

static int run(unsigned int depth, unsigned int n)
{
	calls = n;
	status = 0;
	callee_sp_min = 0xFFFFFFFFu;
	callee_sp_max = 0;
	if (caller(depth) != depth * 7u + depth + 100u)
		return 1;
	if (status)
		return status;
	if (callee_result != expected_deep(n, 5))
		return 2;
	if (callee_sp_min < new_bottom + 64 || callee_sp_max >= new_top)
		return 3;
	if (callee_isl != new_bottom + 64)
		return 4;
	return 0;
}

int main(void)
{
	unsigned int lo = Q7_MBOX_ARG(0, 0), hi = Q7_MBOX_ARG(0, 1);
	__asm__ volatile("memw");
	Q7_MEM_WINDOW_BASE_LO(2) = lo & ~(Q7_WINDOW_SIZE - 1);
	Q7_MEM_WINDOW_BASE_HI(2) = hi;
	Q7_MEM_WINDOW_CTRL(2) = 1;
	__asm__ volatile("memw");
	new_bottom = Q7_XLATE_BASE + 2 * Q7_WINDOW_SIZE + (lo & (Q7_WINDOW_SIZE - 1));
	new_top = new_bottom + STACK_BYTES;
#ifdef OVERFLOW
	return run(12, 5000);    /* must not return: the core stops at the limit */
#endif
	int r = run(2, 0);       /* every caller frame stays live */
	if (r)
		return 100 + r;
	r = run(12, 0);          /* older frames spilled by the caller chain itself */
	if (r)
		return 200 + r;
	return run(12, 200);     /* everything spilled while on the new stack */
}
