/* df.c - double-precision soft-float: arithmetic, comparisons, conversions to and from the
 * integer types and between float and double (README.md in this directory: rounding, NaN and
 * conversion policies).
 *
 * Working form of a finite nonzero value: sign, a biased exponent x and a 64-bit significand
 * sig whose leading 1 sits at bit 62, value = sig * 2^(x - 1084); pack() rounds bits 9..0 away.
 * With x = biased exponent - 1 the packed word is (x << 52) + (sig >> 10), as in sf.c. */
#include "helpers.h"

#define SIGN 0x8000000000000000ull
#define INF 0x7ff0000000000000ull
#define FRAC 0x000fffffffffffffull
#define HIDDEN 0x0010000000000000ull

static inline int is_nan(u64 a)
{
	return (a & ~SIGN) > INF;
}

/* Rounds sig (leading 1 at bit 62, or lower for a result below the normal range with x = 0)
 * to nearest, ties to even, and packs it with exponent x (may be out of range either way). */
static u64 pack(u64 sign, int x, u64 sig)
{
	if (x >= 0x7fe)
		return sign | INF;
	if (x < 0) {
		sig = shr_jam64(sig, -x);
		x = 0;
	}
	u32 round = (u32)sig & 0x3ff;
	u64 bits = ((u64)x << 52) + (sig >> 10);
	if (round > 0x200 || (round == 0x200 && (bits & 1)))
		bits++;
	return sign | bits;
}

/* The significand of a finite nonzero value with its leading 1 at bit 52, and the matching
 * exponent (below 1 for subnormals). */
static inline u64 unpack(u64 a, int *e)
{
	int ex = (int)((a >> 52) & 0x7ff);
	u64 m = a & FRAC;
	if (ex) {
		*e = ex;
		return m | HIDDEN;
	}
	int s = clz64(m) - 11;
	*e = 1 - s;
	return m << s;
}

static u64 add(u64 a, u64 b)
{
	if (is_nan(a) || is_nan(b))
		return Q7_F64_QNAN;
	u64 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (ma_ < mb_) {
		u64 t = a;
		a = b;
		b = t;
		t = ma_;
		ma_ = mb_;
		mb_ = t;
	}
	/* |a| >= |b| */
	u64 sign = a & SIGN;
	int diff_sign = ((a ^ b) & SIGN) != 0;
	if (ma_ == INF) {
		if (mb_ == INF && diff_sign)
			return Q7_F64_QNAN;
		return a;
	}
	if (mb_ == 0) {
		if (ma_ == 0)
			return diff_sign ? 0 : a; /* (+0) + (-0) = +0 */
		return a;
	}
	int ea = (int)(ma_ >> 52), eb = (int)(mb_ >> 52);
	u64 fa = ma_ & FRAC, fb = mb_ & FRAC;
	if (ea)
		fa |= HIDDEN;
	else
		ea = 1;
	if (eb)
		fb |= HIDDEN;
	else
		eb = 1;
	fa <<= 9; /* leading bit at 61: room for the carry of a sum */
	fb = shr_jam64(fb << 9, ea - eb);
	u64 m = diff_sign ? fa - fb : fa + fb;
	if (m == 0)
		return 0; /* exact cancellation: +0 */
	int k = clz64(m) - 1;
	if (k > ea)
		k = ea;
	return pack(sign, ea - k, m << k);
}

double Q7_HELPER(adddf3)(double a, double b)
{
	return f64_from_bits(add(f64_to_bits(a), f64_to_bits(b)));
}

double Q7_HELPER(subdf3)(double a, double b)
{
	return f64_from_bits(add(f64_to_bits(a), f64_to_bits(b) ^ SIGN));
}

double Q7_HELPER(negdf2)(double a)
{
	return f64_from_bits(f64_to_bits(a) ^ SIGN);
}

/* The high 64 bits of the 128-bit product, with the low 64 bits jammed into bit 0. */
static u64 mul64_jam(u64 a, u64 b)
{
	u32 a0 = (u32)a, a1 = (u32)(a >> 32), b0 = (u32)b, b1 = (u32)(b >> 32);
	u64 p00 = mul32x32(a0, b0), p01 = mul32x32(a0, b1);
	u64 p10 = mul32x32(a1, b0), p11 = mul32x32(a1, b1);
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10; /* < 3 * 2^32 */
	u64 hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	u32 lo_nonzero = ((u32)p00 | (u32)mid) != 0;
	return hi | lo_nonzero;
}

double Q7_HELPER(muldf3)(double fa, double fb)
{
	u64 a = f64_to_bits(fa), b = f64_to_bits(fb);
	u64 sign = (a ^ b) & SIGN;
	u64 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (is_nan(a) || is_nan(b))
		return f64_from_bits(Q7_F64_QNAN);
	if (ma_ == INF || mb_ == INF) {
		if (ma_ == 0 || mb_ == 0)
			return f64_from_bits(Q7_F64_QNAN);
		return f64_from_bits(sign | INF);
	}
	if (ma_ == 0 || mb_ == 0)
		return f64_from_bits(sign);
	int ea, eb;
	u64 sa = unpack(a, &ea), sb = unpack(b, &eb);
	u64 sig = mul64_jam(sa << 10, sb << 11); /* leading bit at 61 or 62 */
	int x = ea + eb - 1023;
	if (sig < 0x4000000000000000ull) {
		sig <<= 1;
		x--;
	}
	return f64_from_bits(pack(sign, x, sig));
}

/* One quotient digit: floor(X * 2^32 / D) for X < D, D with its leading bit at 63, and the
 * remainder X * 2^32 - digit * D (< D). The digit estimated from D's top word is at most 2 too
 * large (the divisor is normalised); the remainder, negative then, is corrected by adding D. */
static u32 div_digit(u64 X, u64 D, u64 *rem)
{
	u32 x1 = (u32)(X >> 32), x0 = (u32)X, d1 = (u32)(D >> 32), d0 = (u32)D, r;
	u32 q = x1 >= d1 ? 0xffffffffu : udiv64by32(x1, x0, d1, &r);
	/* q * D as three words w2:w1:w0 */
	u64 p0 = mul32x32(q, d0), p1 = mul32x32(q, d1);
	u64 t = (p0 >> 32) + (u32)p1;
	u32 w2 = (u32)(p1 >> 32) + (u32)(t >> 32);
	u64 low = ((u64)(u32)t << 32) | (u32)p0;
	/* X * 2^32 - q * D: low 64 bits and a top word (0, or -1 / -2 when q is too large) */
	u64 a = (u64)x0 << 32;
	u32 top = x1 - w2 - (a < low);
	u64 diff = a - low;
	while ((i32)top < 0) {
		u64 s = diff + D;
		top += s < diff;
		diff = s;
		q--;
	}
	*rem = diff;
	return q;
}

double Q7_HELPER(divdf3)(double fa, double fb)
{
	u64 a = f64_to_bits(fa), b = f64_to_bits(fb);
	u64 sign = (a ^ b) & SIGN;
	u64 ma_ = a & ~SIGN, mb_ = b & ~SIGN;
	if (is_nan(a) || is_nan(b))
		return f64_from_bits(Q7_F64_QNAN);
	if (ma_ == INF) {
		if (mb_ == INF)
			return f64_from_bits(Q7_F64_QNAN);
		return f64_from_bits(sign | INF);
	}
	if (mb_ == INF)
		return f64_from_bits(sign);
	if (mb_ == 0) {
		if (ma_ == 0)
			return f64_from_bits(Q7_F64_QNAN);
		return f64_from_bits(sign | INF);
	}
	if (ma_ == 0)
		return f64_from_bits(sign);
	int ea, eb;
	u64 r = unpack(a, &ea), d = unpack(b, &eb);
	int x = ea - eb + 1022;
	if (r < d) {
		r <<= 1;
		x--;
	}
	/* r / d in [1, 2). With R = r << 10 and D = d << 11 (leading bit 63): R < D and the
	 * quotient with its leading bit at 62 is floor(R * 2^63 / D); from Q = floor(R * 2^64 / D),
	 * two word digits, it is Q >> 1 with Q's last bit and the remainder as sticky bit. */
	u64 D = d << 11, rem;
	u32 q1 = div_digit(r << 10, D, &rem);
	u32 q0 = div_digit(rem, D, &rem);
	u64 q = ((u64)q1 << 31) | (q0 >> 1);
	return f64_from_bits(pack(sign, x, q | (q0 & 1) | (rem != 0)));
}

/* Three-way comparison: -1, 0, 1, or 2 when unordered. */
static int compare(u64 a, u64 b)
{
	if (is_nan(a) || is_nan(b))
		return 2;
	i64 ka = (a & SIGN) ? -(i64)(a & ~SIGN) : (i64)a;
	i64 kb = (b & SIGN) ? -(i64)(b & ~SIGN) : (i64)b;
	return ka < kb ? -1 : ka > kb;
}

#define COMPARISON(name, unordered)                                                  \
	int Q7_HELPER(name)(double a, double b)                                      \
	{                                                                            \
		int c = compare(f64_to_bits(a), f64_to_bits(b));                     \
		return c == 2 ? (unordered) : c;                                     \
	}

/* a == b / a != b: 0 when equal, else 1 (also when unordered). */
int Q7_HELPER(eqdf2)(double a, double b)
{
	return compare(f64_to_bits(a), f64_to_bits(b)) != 0;
}
int Q7_HELPER(nedf2)(double a, double b)
{
	return compare(f64_to_bits(a), f64_to_bits(b)) != 0;
}
COMPARISON(ltdf2, 1)  /* a < b: result < 0 */
COMPARISON(ledf2, 1)  /* a <= b: result <= 0 */
COMPARISON(gtdf2, -1) /* a > b: result > 0 */
COMPARISON(gedf2, -1) /* a >= b: result >= 0 */

int Q7_HELPER(unorddf2)(double a, double b)
{
	return is_nan(f64_to_bits(a)) || is_nan(f64_to_bits(b));
}

/* |a| truncated toward zero as an integer of `bits` bits, saturated at 2^bits - 1. */
static u64 trunc_mag(u64 a, int bits)
{
	int e = (int)((a >> 52) & 0x7ff) - 1023; /* unbiased exponent */
	if (e < 0)
		return 0;
	if (e >= bits)
		return bits == 64 ? ~0ull : (1ull << bits) - 1;
	u64 m = (a & FRAC) | HIDDEN;
	return e >= 52 ? m << (e - 52) : m >> (52 - e);
}

int Q7_HELPER(fixdfsi)(double f)
{
	u64 a = f64_to_bits(f);
	if (is_nan(a))
		return 0;
	u32 m = (u32)trunc_mag(a, 32);
	if (a & SIGN)
		return m >= 0x80000000u ? (i32)0x80000000u : -(i32)m;
	return m >= 0x80000000u ? 0x7fffffff : (i32)m;
}

unsigned Q7_HELPER(fixunsdfsi)(double f)
{
	u64 a = f64_to_bits(f);
	if (is_nan(a) || (a & SIGN))
		return 0;
	return (u32)trunc_mag(a, 32);
}

i64 Q7_HELPER(fixdfdi)(double f)
{
	u64 a = f64_to_bits(f);
	if (is_nan(a))
		return 0;
	u64 m = trunc_mag(a, 64);
	if (a & SIGN)
		return m >= SIGN ? (i64)SIGN : -(i64)m;
	return m >= SIGN ? (i64)(SIGN - 1) : (i64)m;
}

u64 Q7_HELPER(fixunsdfdi)(double f)
{
	u64 a = f64_to_bits(f);
	if (is_nan(a) || (a & SIGN))
		return 0;
	return trunc_mag(a, 64);
}

/* A nonzero magnitude as a double with the given sign, rounded to nearest even. */
static u64 from_u64(u64 sign, u64 v)
{
	int k = clz64(v);
	u64 n = v << k; /* leading bit at 63 */
	return pack(sign, 1085 - k, (n >> 1) | (n & 1));
}

double Q7_HELPER(floatsidf)(i32 i)
{
	if (i == 0)
		return 0.0;
	u64 sign = i < 0 ? SIGN : 0;
	return f64_from_bits(from_u64(sign, sign ? -(u32)i : (u32)i));
}

double Q7_HELPER(floatunsidf)(u32 i)
{
	if (i == 0)
		return 0.0;
	return f64_from_bits(from_u64(0, i));
}

double Q7_HELPER(floatdidf)(i64 i)
{
	if (i == 0)
		return 0.0;
	u64 sign = i < 0 ? SIGN : 0;
	return f64_from_bits(from_u64(sign, sign ? -(u64)i : (u64)i));
}

double Q7_HELPER(floatundidf)(u64 i)
{
	if (i == 0)
		return 0.0;
	return f64_from_bits(from_u64(0, i));
}

double Q7_HELPER(extendsfdf2)(float f)
{
	u32 a = f32_to_bits(f);
	u64 sign = (u64)(a & 0x80000000u) << 32;
	u32 mag = a & 0x7fffffffu;
	if (mag > 0x7f800000u)
		return f64_from_bits(Q7_F64_QNAN);
	if (mag == 0x7f800000u)
		return f64_from_bits(sign | INF);
	if (mag == 0)
		return f64_from_bits(sign);
	int e = (int)(mag >> 23);
	u32 m = mag & 0x7fffffu;
	if (e == 0) { /* subnormal: normalise */
		int s = clz32(m) - 8;
		m = (m << s) & 0x7fffffu;
		e = 1 - s;
	}
	return f64_from_bits(sign | ((u64)(e + 896) << 52) | ((u64)m << 29));
}

float Q7_HELPER(truncdfsf2)(double f)
{
	u64 a = f64_to_bits(f);
	u32 sign = (u32)(a >> 32) & 0x80000000u;
	u64 mag = a & ~SIGN;
	if (mag > INF)
		return f32_from_bits(Q7_F32_QNAN);
	if (mag == INF)
		return f32_from_bits(sign | 0x7f800000u);
	if (mag == 0)
		return f32_from_bits(sign);
	int e = (int)(mag >> 52);
	u64 m = mag & FRAC;
	if (e)
		m |= HIDDEN;
	else
		e = 1;
	/* leading bit 52 -> 30 with the 22 dropped bits jammed; float x = e - 1023 + 127 - 1 */
	u32 sig = (u32)(m >> 22) | ((m & 0x3fffff) != 0);
	return f32_from_bits(f32_pack(sign, e - 897, sig));
}
