/* 32- and 64-bit integer arithmetic through the windowed helper routines (__divsi3, __muldi3,
 * __udivdi3, __divdi3, __moddi3, __umoddi3, 64-bit shifts). */
#include "testio.h"

typedef unsigned long long u64;
typedef long long i64;

static volatile unsigned int seed = 12345;

static unsigned int next(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed;
}

int main(void)
{
	unsigned int h32 = 0;
	u64 h64 = 0;
	for (int i = 0; i < 300; i++) {
		unsigned int a = next(), b = next() >> (i % 29);
		int sa = (int)a, sb = (int)(b | 1) * ((i & 1) ? -1 : 1);
		h32 = h32 * 33 + a / (b | 1) + a % (b | 1);
		h32 ^= (unsigned int)(sa / sb) + (unsigned int)(sa % sb);
		h32 += a * b + (a >> (i & 31)) + (unsigned int)(sa >> (i & 31)) + (a << (i & 31));
		u64 x = ((u64)next() << 32) | next(), y = ((u64)next() << (i % 40)) | 1;
		i64 sx = (i64)x, sy = (i64)y * ((i & 2) ? -1 : 1);
		h64 = h64 * 1099511628211ull + x * y;
		h64 ^= x / y + x % y;
		h64 += (u64)(sx / sy) + (u64)(sx % sy);
		h64 += (x << (i % 64)) ^ (x >> (i % 64)) ^ (u64)(sx >> (i % 64));
	}
	put_hex("h32", h32);
	put_hex("h64lo", (unsigned int)h64);
	put_hex("h64hi", (unsigned int)(h64 >> 32));
	return (int)(h32 & 0x7f);
}
