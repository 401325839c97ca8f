/* trig.cpp - sin, cos, tan and sincos (README.md in this directory, "Algorithms"): as
 * trigf.cpp for the 53-bit significand: x * 2/pi is its exact product with the 224 bits of 2/pi
 * that matter at x's exponent (Payne-Hanek), which leaves the fraction f at least 138 correct
 * bits below the binary point — every finite double is at least 2^-62 (relative) away from a
 * multiple of pi/2, so |f| keeps 64 significant bits; r = f pi/2, and sin r, cos r are their
 * series to r^19/19! and r^18/18! on 64-bit words; tan r = sin r / cos r by a Newton
 * reciprocal. */
#include "fixed.h"
#include "tables.h"

namespace {

using namespace q7m;

const int LIMBS = 9; /* 53-bit significand times 7 words of 2/pi: 277 bits */

struct Reduced {
	u32 q;
	Wide r;
};

/* Bits [pos, pos + 32) of the little-endian LIMBS-word L (zero outside it). */
u32 window(const u32 *L, int pos)
{
	if (pos <= -32 || pos >= 32 * LIMBS)
		return 0;
	if (pos < 0)
		return L[0] << -pos;
	int w = pos >> 5, b = pos & 31;
	u32 lo = L[w] >> b;
	if (b && w + 1 < LIMBS)
		lo |= L[w + 1] << (32 - b);
	return lo;
}

/* The reduction of |x| (bits a, finite and nonzero): x = (q + f) pi/2, r = f pi/2. */
Reduced reduce(u64 a)
{
	Unpacked64 p = unpack(a);
	if (a <= 0x3fe921fb54442d18ull) /* |x| < pi/4: r = x */
		return {0, {false, p.e, p.m << 11}};
	/* x = m 2^s; the words of 2/pi before i0 contribute multiples of 4 to x * 2/pi */
	int s = p.e - 52;
	int i0 = s >= 34 ? (s - 34) / 32 + 1 : 0;
	int sh = s - 32 * i0;
	/* L = m * (words i0..i0+6 of 2/pi), and x * 2/pi = L * 2^(sh - 224) modulo 4 */
	u32 L[LIMBS] = {};
	for (int j = 0; j < 2; j++) {
		u32 mj = j ? u32(p.m >> 32) : u32(p.m);
		u64 carry = 0;
		for (int t = 0; t < 7; t++) {
			u64 cur = mul32x32(mj, TWO_OVER_PI[i0 + 6 - t]) + L[t + j] + carry;
			L[t + j] = u32(cur);
			carry = cur >> 32;
		}
		L[7 + j] = u32(carry);
	}
	int point = 224 - sh; /* the bit of weight 1 */
	u32 q = window(L, point) & 3;
	/* the fraction in 2^-128 units */
	U128 f = {u64(window(L, point - 32)) << 32 | window(L, point - 64),
		  u64(window(L, point - 96)) << 32 | window(L, point - 128)};
	bool below = f.hi >> 63;
	if (below) { /* round to the nearest quadrant: |f - 1| */
		q++;
		f = neg(f);
	}
	if (f.hi == 0 && f.lo == 0)
		return {q & 3, {below, 0, 0}};
	int z = clz128(f);
	u64 fm = shl(f, z).hi; /* |f| = fm 2^(-64 - z) */
	return {q & 3, normalised(below, PIO2_W.e - z, mulhi(fm, PIO2_W.m))};
}

/* r^2 in 2^-64 units. */
u64 square(Wide r)
{
	int sh = -1 - r.e; /* r in 2^-64 units is m >> sh; r.e <= -1 */
	u64 r64 = sh < 64 ? r.m >> sh : 0;
	return mulhi(r64, r64);
}

/* sin(k pi/2 + r), |r| <= pi/4, r^2 = r2 (in 2^-64): +-sin r for even k, +-cos r for odd. */
Wide sin_quadrant(u32 k, Wide r, u64 r2)
{
	bool neg = k & 2;
	if (k & 1) { /* cos r = 1 - r^2/2! + ... + r^18/18! */
		u64 acc = COS_C64[8];
		for (int i = 7; i >= 0; i--)
			acc = COS_C64[i] - mulhi(r2, acc);
		u64 d = mulhi(r2, acc); /* 1 - cos r, in 2^-64 */
		return d ? Wide{neg, -1, 0 - d} : Wide{neg, 0, u64(1) << 63};
	}
	/* sin r = r (1 - r^2/3! + ... + r^18/19!) */
	u64 acc = SIN_C64[8];
	for (int i = 7; i >= 0; i--)
		acc = SIN_C64[i] - mulhi(r2, acc);
	u64 d = mulhi(r2, acc); /* 1 - sin(r) / r, in 2^-64 */
	return normalised(r.neg != neg, r.e, r.m - mulhi(r.m, d));
}

/* a / b for nonzero wide values: b's reciprocal from a 32-bit quotient and one Newton step
 * (relative error near 2^-61), times a. */
Wide divide(Wide a, Wide b)
{
	u32 rem;
	u32 y0 = udiv64by32(0x7fffffffu, 0xffffffffu, u32(b.m >> 32), &rem); /* 2^63 / bh */
	u64 Y0 = u64(y0) << 31; /* 1/B in 2^-62 units (B = b.m 2^-64), within 2^-30 */
	i64 d = i64((u64(1) << 62) - mulhi(b.m, Y0)); /* 1 - B Y0 in 2^-62 units, |d| < 2^33 */
	u64 Y1 = d >= 0 ? Y0 + mulhi(Y0, u64(d) << 2) : Y0 - mulhi(Y0, u64(-d) << 2);
	return normalised(a.neg != b.neg, a.e - b.e + 1, mulhi(a.m, Y1));
}

} // namespace

extern "C" double Q7_MATH(sin)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a >= F64_INF)
		return a > F64_INF ? quiet(u) : f64(F64_QNAN);
	if (a == 0)
		return x;
	Reduced red = reduce(a);
	Wide w = sin_quadrant(red.q, red.r, square(red.r));
	w.neg = w.neg != (u != a);
	return round_f64(w);
}

extern "C" double Q7_MATH(cos)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a >= F64_INF)
		return a > F64_INF ? quiet(u) : f64(F64_QNAN);
	if (a == 0)
		return f64(F64_ONE);
	Reduced red = reduce(a);
	return round_f64(sin_quadrant(red.q + 1, red.r, square(red.r)));
}

extern "C" void Q7_MATH(sincos)(double x, double *sin_x, double *cos_x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a >= F64_INF) {
		*sin_x = *cos_x = a > F64_INF ? quiet(u) : f64(F64_QNAN);
		return;
	}
	if (a == 0) {
		*sin_x = x;
		*cos_x = f64(F64_ONE);
		return;
	}
	Reduced red = reduce(a);
	u64 r2 = square(red.r);
	Wide s = sin_quadrant(red.q, red.r, r2);
	s.neg = s.neg != (u != a);
	*sin_x = round_f64(s);
	*cos_x = round_f64(sin_quadrant(red.q + 1, red.r, r2));
}

extern "C" double Q7_MATH(tan)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a >= F64_INF)
		return a > F64_INF ? quiet(u) : f64(F64_QNAN);
	if (a == 0)
		return x;
	/* tan(q pi/2 + r) = sin r / cos r for even q, -cos r / sin r for odd q */
	Reduced red = reduce(a);
	u64 r2 = square(red.r);
	Wide s = sin_quadrant(red.q & 1, red.r, r2), c = sin_quadrant((red.q & 1) + 1, red.r, r2);
	if (s.m == 0 || c.m == 0) /* an exact zero of sin r, which no double argument has */
		return f64(u & F64_SIGN);
	Wide w = divide(s, c);
	w.neg = w.neg != (u != a);
	return round_f64(w);
}
