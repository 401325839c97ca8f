/* mem.c - memcpy, memmove, memset, memcmp and strlen for freestanding code (GCC emits calls to
 * them for struct copies, initialisers and some loops). Word-at-a-time where both pointers
 * allow it; memcmp returns the difference of the first differing bytes (as unsigned char). */
#include "helpers.h"

typedef __SIZE_TYPE__ size_t_;
typedef u32 __attribute__((may_alias)) word; /* word accesses to objects of any type */

/* The loops below must stay loops: GCC would otherwise recognise them as calls to these very
 * functions. */
#if defined(__GNUC__) && !defined(__clang__)
#define LOOPS_STAY __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define LOOPS_STAY
#endif

LOOPS_STAY void *Q7_LIBC(memcpy)(void *d, const void *s, size_t_ n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if ((((size_t_)dp | (size_t_)sp) & 3) == 0) {
		for (; n >= 16; n -= 16, dp += 16, sp += 16) {
			word *dw = (word *)dp;
			const word *sw = (const word *)sp;
			u32 w0 = sw[0], w1 = sw[1], w2 = sw[2], w3 = sw[3];
			dw[0] = w0;
			dw[1] = w1;
			dw[2] = w2;
			dw[3] = w3;
		}
		for (; n >= 4; n -= 4, dp += 4, sp += 4)
			*(word *)dp = *(const word *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

LOOPS_STAY void *Q7_LIBC(memmove)(void *d, const void *s, size_t_ n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (dp <= sp || dp >= sp + n)
		return Q7_LIBC(memcpy)(d, s, n); /* forward copy is safe */
	/* overlapping with d above s: copy from the end */
	dp += n;
	sp += n;
	if ((((size_t_)dp | (size_t_)sp) & 3) == 0) {
		for (; n >= 4; n -= 4) {
			dp -= 4;
			sp -= 4;
			*(word *)dp = *(const word *)sp;
		}
	}
	while (n--)
		*--dp = *--sp;
	return d;
}

LOOPS_STAY void *Q7_LIBC(memset)(void *d, int c, size_t_ n)
{
	unsigned char *dp = d;
	unsigned char b = (unsigned char)c;
	for (; n && ((size_t_)dp & 3); n--)
		*dp++ = b;
	u32 w = b * 0x01010101u;
	for (; n >= 4; n -= 4, dp += 4)
		*(word *)dp = w;
	while (n--)
		*dp++ = b;
	return d;
}

LOOPS_STAY int Q7_LIBC(memcmp)(const void *a, const void *b, size_t_ n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

LOOPS_STAY size_t_ Q7_LIBC(strlen)(const char *s)
{
	size_t_ n = 0;
	while (s[n])
		n++;
	return n;
}
