/* bits.c - bit-counting and byte-swapping helpers, on 32-bit halves and without the builtins
 * that would call them back. Zero has 32 (64) leading and trailing zeros; ffs(0) = 0. */
#include "helpers.h"

static inline int ctz32(u32 x)
{
	return 31 - clz32(x & -x);
}

static inline int popcount32(u32 x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	x += x >> 8;
	x += x >> 16;
	return (int)(x & 0x3f);
}

static inline u32 bswap32(u32 x)
{
	return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

int Q7_HELPER(clzsi2)(u32 x)
{
	return x ? clz32(x) : 32;
}

int Q7_HELPER(clzdi2)(u64 x)
{
	return x ? clz64(x) : 64;
}

int Q7_HELPER(ctzsi2)(u32 x)
{
	return x ? ctz32(x) : 32;
}

int Q7_HELPER(ctzdi2)(u64 x)
{
	u32 lo = (u32)x, hi = (u32)(x >> 32);
	if (lo)
		return ctz32(lo);
	return hi ? 32 + ctz32(hi) : 64;
}

int Q7_HELPER(ffssi2)(u32 x)
{
	return x ? ctz32(x) + 1 : 0;
}

int Q7_HELPER(ffsdi2)(u64 x)
{
	u32 lo = (u32)x, hi = (u32)(x >> 32);
	if (lo)
		return ctz32(lo) + 1;
	return hi ? ctz32(hi) + 33 : 0;
}

int Q7_HELPER(popcountsi2)(u32 x)
{
	return popcount32(x);
}

int Q7_HELPER(popcountdi2)(u64 x)
{
	return popcount32((u32)x) + popcount32((u32)(x >> 32));
}

int Q7_HELPER(paritysi2)(u32 x)
{
	return popcount32(x) & 1;
}

int Q7_HELPER(paritydi2)(u64 x)
{
	return popcount32((u32)x ^ (u32)(x >> 32)) & 1;
}

u32 Q7_HELPER(bswapsi2)(u32 x)
{
	return bswap32(x);
}

u64 Q7_HELPER(bswapdi2)(u64 x)
{
	return ((u64)bswap32((u32)x) << 32) | bswap32((u32)(x >> 32));
}

/* Leading redundant sign bits: the bits after the sign bit equal to it. */
int Q7_HELPER(clrsbsi2)(i32 x)
{
	u32 v = (u32)x ^ (u32)(x >> 31);
	return v ? clz32(v) - 1 : 31;
}

int Q7_HELPER(clrsbdi2)(i64 x)
{
	u32 hi = (u32)((u64)x >> 32), lo = (u32)x;
	u32 s = (u32)((i32)hi >> 31);
	hi ^= s;
	lo ^= s;
	if (hi)
		return clz32(hi) - 1;
	return lo ? 31 + clz32(lo) : 63;
}
