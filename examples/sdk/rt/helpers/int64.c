/* int64.c - 64-bit integer multiply, divide, modulo and shifts, built on 32-bit halves (so they
 * never call one another or themselves): the 32-bit divisions are QUOU/REMU through int32.S,
 * the products MULL. Division by zero raises IntegerDivideByZero (helpers.h); INT64_MIN / -1 is
 * INT64_MIN with remainder 0. Shift counts are 0..63. */
#include "helpers.h"

u64 Q7_HELPER(muldi3)(u64 a, u64 b)
{
	u32 al = (u32)a, ah = (u32)(a >> 32), bl = (u32)b, bh = (u32)(b >> 32);
	u64 p = mul32x32(al, bl);
	u32 hi = (u32)(p >> 32) + al * bh + ah * bl;
	return ((u64)hi << 32) | (u32)p;
}

/* n / d with the remainder; d != 0. One 64-by-32 step when d fits a word, else the quotient
 * fits a word: estimated from the divisor's normalised top word, then corrected by one. */
static u64 udivmod(u64 n, u64 d, u64 *rem)
{
	u32 nh = (u32)(n >> 32), nl = (u32)n, dh = (u32)(d >> 32), dl = (u32)d;
	if (dh == 0) {
		u32 qh = 0, r;
		if (nh >= dl) {
			qh = nh / dl;
			nh -= qh * dl;
		}
		u32 ql = udiv64by32(nh, nl, dl, &r);
		*rem = r;
		return ((u64)qh << 32) | ql;
	}
	if (nh < dh) {
		*rem = n;
		return 0;
	}
	int s = clz32(dh);
	u32 v1 = s ? (dh << s) | (dl >> (32 - s)) : dh;
	u32 r1;
	u32 q = udiv64by32(nh >> 1, (nh << 31) | (nl >> 1), v1, &r1) >> (31 - s);
	if (q)
		q--;
	u64 prod = mul32x32(q, dl) + ((u64)(q * dh) << 32);
	u64 r = n - prod;
	if (r >= d) {
		q++;
		r -= d;
	}
	*rem = r;
	return q;
}

static inline u64 magnitude(i64 a)
{
	return a < 0 ? -(u64)a : (u64)a;
}

u64 Q7_HELPER(udivdi3)(u64 a, u64 b)
{
	u64 r;
	if (b == 0) {
		Q7_DIVIDE_BY_ZERO();
		return 0;
	}
	return udivmod(a, b, &r);
}

u64 Q7_HELPER(umoddi3)(u64 a, u64 b)
{
	u64 r;
	if (b == 0) {
		Q7_DIVIDE_BY_ZERO();
		return 0;
	}
	udivmod(a, b, &r);
	return r;
}

i64 Q7_HELPER(divdi3)(i64 a, i64 b)
{
	u64 r;
	if (b == 0) {
		Q7_DIVIDE_BY_ZERO();
		return 0;
	}
	u64 q = udivmod(magnitude(a), magnitude(b), &r);
	return (i64)(((a < 0) != (b < 0)) ? -q : q);
}

i64 Q7_HELPER(moddi3)(i64 a, i64 b)
{
	u64 r;
	if (b == 0) {
		Q7_DIVIDE_BY_ZERO();
		return 0;
	}
	udivmod(magnitude(a), magnitude(b), &r);
	return (i64)(a < 0 ? -r : r);
}

u64 Q7_HELPER(ashldi3)(u64 a, int s)
{
	u32 lo = (u32)a, hi = (u32)(a >> 32);
	if (s == 0)
		return a;
	if (s >= 32)
		return (u64)(lo << (s - 32)) << 32;
	return ((u64)((hi << s) | (lo >> (32 - s))) << 32) | (lo << s);
}

u64 Q7_HELPER(lshrdi3)(u64 a, int s)
{
	u32 lo = (u32)a, hi = (u32)(a >> 32);
	if (s == 0)
		return a;
	if (s >= 32)
		return hi >> (s - 32);
	return ((u64)(hi >> s) << 32) | (lo >> s) | (hi << (32 - s));
}

i64 Q7_HELPER(ashrdi3)(i64 a, int s)
{
	u32 lo = (u32)a;
	i32 hi = (i32)((u64)a >> 32);
	if (s == 0)
		return a;
	if (s >= 32)
		return (i64)(((u64)(u32)(hi >> 31) << 32) | (u32)(hi >> (s - 32)));
	return (i64)(((u64)(u32)(hi >> s) << 32) | (lo >> s) | ((u32)hi << (32 - s)));
}
