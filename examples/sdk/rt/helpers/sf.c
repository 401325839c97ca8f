/* sf.c - single-precision soft-float: arithmetic, comparisons and conversions to and from the
 * integer types (README.md in this directory: rounding, NaN and conversion policies). Finite
 * values are worked on in the form f32_pack (helpers.h) rounds and packs. */
#include "helpers.h"

#define SIGN 0x80000000u
#define INF 0x7f800000u
#define FRAC 0x007fffffu

static inline int is_nan(u32 a)
{
	return (a & ~SIGN) > INF;
}

/* The significand of a finite nonzero value with its leading 1 at bit 23, and the matching
 * exponent (below 1 for subnormals). */
static inline u32 unpack(u32 a, int *e)
{
	int ex = (int)((a >> 23) & 0xff);
	u32 m = a & FRAC;
	if (ex) {
		*e = ex;
		return m | 0x800000u;
	}
	int s = clz32(m) - 8;
	*e = 1 - s;
	return m << s;
}

static u32 add(u32 a, u32 b)
{
	if (is_nan(a) || is_nan(b))
		return Q7_F32_QNAN;
	u32 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (ma_ < mb_) {
		u32 t = a;
		a = b;
		b = t;
		t = ma_;
		ma_ = mb_;
		mb_ = t;
	}
	/* |a| >= |b| */
	u32 sign = a & SIGN;
	int diff_sign = (a ^ b) & SIGN;
	if (ma_ == INF) {
		if (mb_ == INF && diff_sign)
			return Q7_F32_QNAN;
		return a;
	}
	if (mb_ == 0) {
		if (ma_ == 0)
			return diff_sign ? 0 : a; /* (+0) + (-0) = +0 */
		return a;
	}
	int ea = (int)(ma_ >> 23), eb = (int)(mb_ >> 23);
	u32 fa = ma_ & FRAC, fb = mb_ & FRAC;
	if (ea)
		fa |= 0x800000u;
	else
		ea = 1;
	if (eb)
		fb |= 0x800000u;
	else
		eb = 1;
	fa <<= 6; /* leading bit at 29: room for the carry of a sum */
	fb = shr_jam32(fb << 6, ea - eb);
	u32 m = diff_sign ? fa - fb : fa + fb;
	if (m == 0)
		return 0; /* exact cancellation: +0 */
	int k = clz32(m) - 1;
	if (k > ea)
		k = ea;
	return f32_pack(sign, ea - k, m << k);
}

float Q7_HELPER(addsf3)(float a, float b)
{
	return f32_from_bits(add(f32_to_bits(a), f32_to_bits(b)));
}

float Q7_HELPER(subsf3)(float a, float b)
{
	return f32_from_bits(add(f32_to_bits(a), f32_to_bits(b) ^ SIGN));
}

float Q7_HELPER(negsf2)(float a)
{
	return f32_from_bits(f32_to_bits(a) ^ SIGN);
}

float Q7_HELPER(mulsf3)(float fa, float fb)
{
	u32 a = f32_to_bits(fa), b = f32_to_bits(fb);
	u32 sign = (a ^ b) & SIGN;
	u32 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (is_nan(a) || is_nan(b))
		return f32_from_bits(Q7_F32_QNAN);
	if (ma_ == INF || mb_ == INF) {
		if (ma_ == 0 || mb_ == 0)
			return f32_from_bits(Q7_F32_QNAN);
		return f32_from_bits(sign | INF);
	}
	if (ma_ == 0 || mb_ == 0)
		return f32_from_bits(sign);
	int ea, eb;
	u32 sa = unpack(a, &ea), sb = unpack(b, &eb);
	u64 p = mul32x32(sa << 7, sb << 8); /* in [2^61, 2^63) */
	u32 sig = (u32)(p >> 32) | ((u32)p != 0);
	int x = ea + eb - 127;
	if (sig < 0x40000000u) {
		sig <<= 1;
		x--;
	}
	return f32_from_bits(f32_pack(sign, x, sig));
}

float Q7_HELPER(divsf3)(float fa, float fb)
{
	u32 a = f32_to_bits(fa), b = f32_to_bits(fb);
	u32 sign = (a ^ b) & SIGN;
	u32 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (is_nan(a) || is_nan(b))
		return f32_from_bits(Q7_F32_QNAN);
	if (ma_ == INF) {
		if (mb_ == INF)
			return f32_from_bits(Q7_F32_QNAN);
		return f32_from_bits(sign | INF);
	}
	if (mb_ == INF)
		return f32_from_bits(sign);
	if (mb_ == 0) {
		if (ma_ == 0)
			return f32_from_bits(Q7_F32_QNAN);
		return f32_from_bits(sign | INF);
	}
	if (ma_ == 0)
		return f32_from_bits(sign);
	int ea, eb;
	u32 sa = unpack(a, &ea), sb = unpack(b, &eb);
	int x = ea - eb + 126;
	if (sa < sb) {
		sa <<= 1;
		x--;
	}
	/* sa / sb in [1, 2): the quotient of sa * 2^30 has its leading bit at 30 */
	u32 rem;
	u32 q = udiv64by32(sa >> 2, sa << 30, sb, &rem);
	return f32_from_bits(f32_pack(sign, x, q | (rem != 0)));
}

/* Three-way comparison: -1, 0, 1, or 2 when unordered. */
static int compare(u32 a, u32 b)
{
	if (is_nan(a) || is_nan(b))
		return 2;
	i32 ka = (a & SIGN) ? -(i32)(a & ~SIGN) : (i32)a;
	i32 kb = (b & SIGN) ? -(i32)(b & ~SIGN) : (i32)b;
	return ka < kb ? -1 : ka > kb;
}

#define COMPARISON(name, unordered)                                                  \
	int Q7_HELPER(name)(float a, float b)                                        \
	{                                                                            \
		int c = compare(f32_to_bits(a), f32_to_bits(b));                     \
		return c == 2 ? (unordered) : c;                                     \
	}

/* a == b / a != b: 0 when equal, else 1 (also when unordered). */
int Q7_HELPER(eqsf2)(float a, float b)
{
	return compare(f32_to_bits(a), f32_to_bits(b)) != 0;
}
int Q7_HELPER(nesf2)(float a, float b)
{
	return compare(f32_to_bits(a), f32_to_bits(b)) != 0;
}
COMPARISON(ltsf2, 1)  /* a < b: result < 0 */
COMPARISON(lesf2, 1)  /* a <= b: result <= 0 */
COMPARISON(gtsf2, -1) /* a > b: result > 0 */
COMPARISON(gesf2, -1) /* a >= b: result >= 0 */

int Q7_HELPER(unordsf2)(float a, float b)
{
	return is_nan(f32_to_bits(a)) || is_nan(f32_to_bits(b));
}

/* |a| truncated toward zero as an integer of `bits` bits, saturated at 2^bits - 1. */
static u64 trunc_mag(u32 a, int bits)
{
	int e = (int)((a >> 23) & 0xff) - 127; /* unbiased exponent */
	if (e < 0)
		return 0;
	if (e >= bits)
		return bits == 64 ? ~0ull : (1ull << bits) - 1;
	u64 m = (a & FRAC) | 0x800000u;
	return e >= 23 ? m << (e - 23) : m >> (23 - e);
}

int Q7_HELPER(fixsfsi)(float f)
{
	u32 a = f32_to_bits(f);
	if (is_nan(a))
		return 0;
	u32 m = (u32)trunc_mag(a, 32);
	if (a & SIGN)
		return m >= 0x80000000u ? (i32)0x80000000u : -(i32)m;
	return m >= 0x80000000u ? 0x7fffffff : (i32)m;
}

unsigned Q7_HELPER(fixunssfsi)(float f)
{
	u32 a = f32_to_bits(f);
	if (is_nan(a) || (a & SIGN))
		return 0;
	return (u32)trunc_mag(a, 32);
}

i64 Q7_HELPER(fixsfdi)(float f)
{
	u32 a = f32_to_bits(f);
	if (is_nan(a))
		return 0;
	u64 m = trunc_mag(a, 64);
	const u64 min = 0x8000000000000000ull;
	if (a & SIGN)
		return m >= min ? (i64)min : -(i64)m;
	return m >= min ? (i64)(min - 1) : (i64)m;
}

u64 Q7_HELPER(fixunssfdi)(float f)
{
	u32 a = f32_to_bits(f);
	if (is_nan(a) || (a & SIGN))
		return 0;
	return trunc_mag(a, 64);
}

/* A nonzero magnitude as a float with the given sign, rounded to nearest even. */
static u32 from_u64(u32 sign, u64 v)
{
	int k = clz64(v);
	u64 n = v << k; /* leading bit at 63 */
	u32 sig = (u32)(n >> 32) | ((u32)n != 0);
	return f32_pack(sign, 189 - k, (sig >> 1) | (sig & 1));
}

float Q7_HELPER(floatsisf)(i32 i)
{
	if (i == 0)
		return 0.0f;
	u32 sign = i < 0 ? SIGN : 0;
	return f32_from_bits(from_u64(sign, sign ? -(u32)i : (u32)i));
}

float Q7_HELPER(floatunsisf)(u32 i)
{
	if (i == 0)
		return 0.0f;
	return f32_from_bits(from_u64(0, i));
}

float Q7_HELPER(floatdisf)(i64 i)
{
	if (i == 0)
		return 0.0f;
	u32 sign = i < 0 ? SIGN : 0;
	return f32_from_bits(from_u64(sign, sign ? -(u64)i : (u64)i));
}

float Q7_HELPER(floatundisf)(u64 i)
{
	if (i == 0)
		return 0.0f;
	return f32_from_bits(from_u64(0, i));
}
