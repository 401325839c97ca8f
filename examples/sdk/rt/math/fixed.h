/* fixed.h - the integer toolkit of the math library (README.md in this directory): IEEE
 * encodings, products and quotients of words, a 128-bit word, and rounding a wide result to
 * float or double. No function here uses float or double arithmetic: the library computes in
 * fixed point on integers, so the device (soft-float) and the host compute the same bits.
 *
 * Naming: on the device every function has its C name (sinf, exp, ...); compiled for the host
 * with Q7_MATH_HOST defined (the native tests) it is q7_<name>, so that the same code runs
 * beside the host's own libm, the reference it is measured against. */
#ifndef Q7_MATH_FIXED_H
#define Q7_MATH_FIXED_H

#include <stdint.h>

#if defined(Q7_MATH_HOST) && !defined(Q7_HELPERS_HOST)
#define Q7_HELPERS_HOST
#endif
#include "../helpers/helpers.h"

#ifdef Q7_MATH_HOST
#define Q7_MATH(name) q7_##name
#else
#define Q7_MATH(name) name
#endif

/* The functions of this library, declared with C linkage under their Q7_MATH names (on the
 * device they are the declarations of <math.h>). */
extern "C" {
float Q7_MATH(expf)(float x);
float Q7_MATH(exp2f)(float x);
float Q7_MATH(logf)(float x);
float Q7_MATH(log2f)(float x);
float Q7_MATH(log10f)(float x);
float Q7_MATH(powf)(float x, float y);
float Q7_MATH(sinf)(float x);
float Q7_MATH(cosf)(float x);
float Q7_MATH(tanf)(float x);
void Q7_MATH(sincosf)(float x, float *s, float *c);
float Q7_MATH(sqrtf)(float x);
float Q7_MATH(fmodf)(float x, float y);
double Q7_MATH(exp)(double x);
double Q7_MATH(exp2)(double x);
double Q7_MATH(log)(double x);
double Q7_MATH(log2)(double x);
double Q7_MATH(log10)(double x);
double Q7_MATH(pow)(double x, double y);
double Q7_MATH(sin)(double x);
double Q7_MATH(cos)(double x);
double Q7_MATH(tan)(double x);
void Q7_MATH(sincos)(double x, double *s, double *c);
double Q7_MATH(sqrt)(double x);
double Q7_MATH(fmod)(double x, double y);
}

namespace q7m {

/* ---- IEEE encodings ------------------------------------------------------------------- */

inline u32 bits(float x)
{
	u32 u;
	__builtin_memcpy(&u, &x, sizeof u);
	return u;
}
inline float f32(u32 u)
{
	float x;
	__builtin_memcpy(&x, &u, sizeof x);
	return x;
}
inline u64 bits(double x)
{
	u64 u;
	__builtin_memcpy(&u, &x, sizeof u);
	return u;
}
inline double f64(u64 u)
{
	double x;
	__builtin_memcpy(&x, &u, sizeof x);
	return x;
}

const u32 F32_SIGN = 0x80000000u;
const u32 F32_INF = 0x7f800000u;
const u32 F32_ONE = 0x3f800000u;
/* The NaN an invalid operation returns (the helper routines' default NaN, ../helpers/README.md
 * "NaN policy"); a NaN argument is returned quieted instead (README.md "Edge cases"). */
const u32 F32_QNAN = Q7_F32_QNAN;
const u64 F64_SIGN = 0x8000000000000000ull;
const u64 F64_INF = 0x7ff0000000000000ull;
const u64 F64_ONE = 0x3ff0000000000000ull;
const u64 F64_QNAN = Q7_F64_QNAN;

/* A NaN argument, quieted: sign and payload kept, the quiet bit set. */
inline float quiet(u32 u) { return f32(u | 0x00400000u); }
inline double quiet(u64 u) { return f64(u | 0x0008000000000000ull); }

/* A finite nonzero float as m * 2^(e - 23), m with bit 23 set (subnormals normalised). */
struct Unpacked32 {
	u32 m;
	int e;
};
inline Unpacked32 unpack(u32 abs_bits)
{
	int be = int(abs_bits >> 23);
	u32 m = abs_bits & 0x7fffffu;
	if (be == 0) {
		int s = clz32(m) - 8;
		return {m << s, -126 - s};
	}
	return {m | 0x800000u, be - 127};
}

/* A finite nonzero double as m * 2^(e - 52), m with bit 52 set (subnormals normalised). */
struct Unpacked64 {
	u64 m;
	int e;
};
inline Unpacked64 unpack(u64 abs_bits)
{
	int be = int(abs_bits >> 52);
	u64 m = abs_bits & 0xfffffffffffffull;
	if (be == 0) {
		int s = clz64(m) - 11;
		return {m << s, -1022 - s};
	}
	return {m | 0x10000000000000ull, be - 1023};
}

/* ---- Products ------------------------------------------------------------------------- */

/* floor(a * b / 2^32): the high word of the exact product. */
inline u32 mulhi(u32 a, u32 b)
{
	return u32(mul32x32(a, b) >> 32);
}

/* floor(a * b / 2^64): the high double word of the exact product (four word products). */
inline u64 mulhi(u64 a, u64 b)
{
	u32 a0 = u32(a), a1 = u32(a >> 32), b0 = u32(b), b1 = u32(b >> 32);
	u64 p00 = mul32x32(a0, b0), p01 = mul32x32(a0, b1), p10 = mul32x32(a1, b0);
	u64 mid = (p00 >> 32) + u32(p01) + u32(p10);
	return mul32x32(a1, b1) + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* a * b modulo 2^64. */
inline u64 mul64x32(u64 a, u32 b)
{
	return mul32x32(u32(a), b) + (u64(u32(a >> 32) * b) << 32);
}

/* An unsigned 128-bit word. */
struct U128 {
	u64 hi, lo;
};
inline U128 mul64x64(u64 a, u64 b)
{
	u32 a0 = u32(a), a1 = u32(a >> 32), b0 = u32(b), b1 = u32(b >> 32);
	u64 p00 = mul32x32(a0, b0), p01 = mul32x32(a0, b1), p10 = mul32x32(a1, b0);
	u64 mid = (p00 >> 32) + u32(p01) + u32(p10);
	return {mul32x32(a1, b1) + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | u32(p00)};
}
inline U128 add(U128 a, U128 b)
{
	u64 lo = a.lo + b.lo;
	return {a.hi + b.hi + (lo < a.lo), lo};
}
inline U128 sub(U128 a, U128 b)
{
	return {a.hi - b.hi - (a.lo < b.lo), a.lo - b.lo};
}
inline U128 neg(U128 a)
{
	return sub(U128{0, 0}, a);
}
/* a >> n for 0 <= n < 128 (logical). */
inline U128 shr(U128 a, int n)
{
	if (n == 0)
		return a;
	if (n >= 64)
		return {0, a.hi >> (n - 64)};
	return {a.hi >> n, (a.lo >> n) | (a.hi << (64 - n))};
}
/* a << n for 0 <= n < 128. */
inline U128 shl(U128 a, int n)
{
	if (n == 0)
		return a;
	if (n >= 64)
		return {a.lo << (n - 64), 0};
	return {(a.hi << n) | (a.lo >> (64 - n)), a.lo << n};
}
/* Leading zeros of a nonzero 128-bit word. */
inline int clz128(U128 a)
{
	return a.hi ? clz64(a.hi) : 64 + clz64(a.lo);
}

/* ---- Wide results --------------------------------------------------------------------- */

/* A result before rounding: (-1)^neg * m * 2^(e - 63), m normalised (bit 63 set) or 0. */
struct Wide {
	bool neg;
	int e;
	u64 m;
};

/* m * 2^(e - 63) normalised: the leading 1 moved to bit 63 (m = 0 stays 0). */
inline Wide normalised(bool neg, int e, u64 m)
{
	if (m == 0)
		return {neg, 0, 0};
	int s = clz64(m);
	return {neg, e - s, m << s};
}

/* A result carried on 128 bits: (-1)^neg * m * 2^(e - 127), m normalised (bit 127 set) or 0. */
struct Wide128 {
	bool neg;
	int e;
	U128 m;
};

inline Wide128 normalised(bool neg, int e, U128 m)
{
	if (m.hi == 0 && m.lo == 0)
		return {neg, 0, m};
	int s = clz128(m);
	return {neg, e - s, shl(m, s)};
}

/* a * b to 128 bits (the top half of the 256-bit product, less the low partial product's
 * carries: an error below 2^-125 relative). */
inline Wide128 mul(Wide128 a, Wide128 b)
{
	U128 r = mul64x64(a.m.hi, b.m.hi);
	r = add(r, U128{0, mul64x64(a.m.hi, b.m.lo).hi});
	r = add(r, U128{0, mul64x64(a.m.lo, b.m.hi).hi});
	return normalised(a.neg != b.neg, a.e + b.e + 1, r);
}

/* w on 64 bits, the bits below kept as a jam bit (so that rounding it rounds w). */
inline Wide narrowed(Wide128 w)
{
	return {w.neg, w.e, w.m.hi | (w.m.lo != 0)};
}

/* A float-precision result before rounding: (-1)^neg * m * 2^(e - 31), m normalised (bit 31
 * set) or 0. */
struct Wide32 {
	bool neg;
	int e;
	u32 m;
};

inline Wide32 normalised(bool neg, int e, u32 m)
{
	if (m == 0)
		return {neg, 0, 0};
	int s = clz32(m);
	return {neg, e - s, m << s};
}

/* The float nearest to w (ties to even), overflowing to infinity and underflowing through the
 * subnormals to zero; the sign of w is kept. */
inline float round_f32(Wide w)
{
	u32 sign = w.neg ? F32_SIGN : 0;
	if (w.m == 0)
		return f32(sign);
	int be = w.e + 127;
	if (be >= 0xff)
		return f32(sign | F32_INF);
	/* 32 bits, the lowest holding everything below them (the jam). */
	u32 m = u32(w.m >> 32) | (u32(w.m) != 0);
	if (be <= 0) {
		m = shr_jam32(m, 1 - be);
		be = 0;
	}
	u32 round = m & 0xff;
	u32 out = (be > 0 ? u32(be - 1) << 23 : 0) + (m >> 8);
	if (round > 0x80 || (round == 0x80 && (out & 1)))
		out++;
	return f32(sign | out);
}

inline float round_f32(Wide32 w)
{
	return round_f32(Wide{w.neg, w.e, u64(w.m) << 32});
}

/* The double nearest to w, as round_f32. */
inline double round_f64(Wide w)
{
	u64 sign = w.neg ? F64_SIGN : 0;
	if (w.m == 0)
		return f64(sign);
	int be = w.e + 1023;
	if (be >= 0x7ff)
		return f64(sign | F64_INF);
	u64 m = w.m;
	if (be <= 0) {
		m = shr_jam64(m, 1 - be);
		be = 0;
	}
	u32 round = u32(m) & 0x7ff;
	u64 out = (be > 0 ? u64(be - 1) << 52 : 0) + (m >> 11);
	if (round > 0x400 || (round == 0x400 && (out & 1)))
		out++;
	return f64(sign | out);
}

} // namespace q7m

#endif
