/* exp.cpp - exp and exp2 (README.md in this directory, "Algorithms"): as expf.cpp on 64-bit
 * words: 2^t for t = k + f, f a 64-bit binary fraction, is 2^k * 2^(j/64) * 2^g with 2^(j/64)
 * from a table and 2^g - 1 (0 <= g < 1/64) a degree-7 polynomial; for exp, t = x log2(e) is
 * the exact product of the 53-bit significand and a 128-bit log2(e), so f is right to 2^-64. */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

namespace q7m {

Wide exp2_wide64(int k, u64 f)
{
	u32 j = u32(f >> 58);
	u64 g = f & ((u64(1) << 58) - 1); /* 2^-64 units, below 2^-6 */
	u64 p = EXP2_POLY64[6];
	for (int i = 5; i >= 0; i--)
		p = EXP2_POLY64[i] + mulhi(g, p);
	u64 q = mulhi(g, p);          /* 2^g - 1, 2^-64 units */
	u64 t = EXP2_TABLE64[j];      /* 2^(j/64), 2^-63 units */
	u64 m = t + mulhi(t, q);      /* 2^(j/64 + g), 2^-63 units */
	if (m < t)                    /* rounded up to 2 */
		return {false, k + 1, u64(1) << 63};
	return {false, k, m};
}

} // namespace q7m

using namespace q7m;

namespace {

/* 2^t for t in 2^-64 units (a two's complement 128-bit word), rounded. */
double exp2_fixed(U128 t)
{
	return round_f64(exp2_wide64(int(i64(t.hi)), t.lo));
}

/* The special arguments shared by exp and exp2; false when x is none. */
bool special(u64 u, double *out)
{
	u64 a = u & ~F64_SIGN;
	if (a >= F64_INF) {
		*out = a > F64_INF ? quiet(u) : f64(u == a ? F64_INF : 0);
		return true;
	}
	if (a < 0x3c90000000000000ull) { /* |x| < 2^-54: the result rounds to 1 */
		*out = f64(F64_ONE);
		return true;
	}
	return false;
}

} // namespace

extern "C" double Q7_MATH(exp)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	double out;
	if (special(u, &out))
		return out;
	bool neg = u != a;
	if (a >= (neg ? 0x4087500000000000ull : 0x4086300000000000ull)) /* x <= -746, x >= 710 */
		return f64(neg ? 0 : F64_INF);
	/* t = x log2(e) in 2^-64 units: m * LOG2E_128 (181 bits) >> (115 - e), -54 <= e <= 9 */
	Unpacked64 p = unpack(a);
	U128 hi = mul64x64(p.m, LOG2E_128.m.hi), lo = mul64x64(p.m, LOG2E_128.m.lo);
	U128 mid = add(U128{0, lo.hi}, U128{0, hi.lo}); /* bits 64..191 are hi.hi:mid */
	u64 w2 = hi.hi + mid.hi, w1 = mid.lo;
	int s = 115 - p.e; /* 106..169 */
	U128 t = s >= 128 ? U128{0, w2 >> (s - 128)}
			  : U128{w2 >> (s - 64), (w1 >> (s - 64)) | (w2 << (128 - s))};
	return exp2_fixed(neg ? q7m::neg(t) : t);
}

extern "C" double Q7_MATH(exp2)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	double out;
	if (special(u, &out))
		return out;
	bool neg = u != a;
	if (a >= (neg ? 0x4091000000000000ull : 0x4090000000000000ull)) /* x <= -1088, x >= 1024 */
		return f64(neg ? 0 : F64_INF);
	/* t = x in 2^-64 units, exact: m 2^(e + 12), -54 <= e <= 10 */
	Unpacked64 p = unpack(a);
	U128 t = p.e >= -12 ? shl(U128{0, p.m}, p.e + 12) : U128{0, p.m >> (-12 - p.e)};
	return exp2_fixed(neg ? q7m::neg(t) : t);
}
