/* trigf.cpp - sinf, cosf, tanf and sincosf (README.md in this directory, "Algorithms"). The
 * argument is reduced to x = (q + f) pi/2 with q an integer and |f| <= 1/2 for every finite
 * float: x * 2/pi is the exact product of the 24-bit significand and the 128 bits of 2/pi that
 * matter at its exponent (Payne-Hanek; the bits above give multiples of 4, which no result
 * depends on), so f keeps at least 64 correct bits below the binary point. Then r = f pi/2,
 * |r| <= pi/4, and sin r = r (1 - r^2/3! + ... - r^10/11!), cos r = 1 - r^2/2! + ... - r^10/10!
 * in 32-bit fixed point; tan r = sin r / cos r. */
#include "fixed.h"
#include "tables.h"

namespace {

using namespace q7m;

/* x = (q + f) pi/2 with r = f pi/2 (signed, |r| <= pi/4). */
struct Reduced {
	u32 q;
	Wide r;
};

/* Bits [pos, pos + 32) of the little-endian 160-bit word L (zero outside it). */
u32 window(const u32 *L, int pos)
{
	if (pos <= -32 || pos >= 160)
		return 0;
	if (pos < 0)
		return L[0] << -pos;
	int w = pos >> 5, b = pos & 31;
	u32 lo = L[w] >> b;
	if (b && w + 1 < 5)
		lo |= L[w + 1] << (32 - b);
	return lo;
}

/* The reduction of |x| (bits a, finite and nonzero). */
Reduced reduce(u32 a)
{
	Unpacked32 p = unpack(a);
	if (a < 0x3f490fdbu) /* |x| < pi/4: r = x */
		return {0, {false, p.e, u64(p.m) << 40}};
	/* x = m 2^s; the words of 2/pi before i0 contribute multiples of 4 to x * 2/pi */
	int s = p.e - 23;
	int i0 = s >= 34 ? (s - 34) / 32 + 1 : 0;
	int sh = s - 32 * i0;
	/* L = m * (words i0..i0+3 of 2/pi), and x * 2/pi = L * 2^(sh - 128) modulo 4 */
	u32 L[5];
	u64 c = 0;
	for (int t = 0; t < 4; t++) {
		c += mul32x32(p.m, TWO_OVER_PI[i0 + 3 - t]);
		L[t] = u32(c);
		c >>= 32;
	}
	L[4] = u32(c);
	int point = 128 - sh; /* the bit of weight 1 */
	u32 q = window(L, point) & 3;
	u32 f2 = window(L, point - 32), f1 = window(L, point - 64), f0 = window(L, point - 96);
	U128 f = {u64(f2) << 32 | f1, u64(f0) << 32}; /* the fraction, in 2^-128 units */
	bool below = f2 >> 31;
	if (below) { /* round to the nearest quadrant: f - 1 */
		q++;
		f = neg(f);
	}
	if (f.hi == 0 && f.lo == 0)
		return {q & 3, {below, 0, 0}};
	int z = clz128(f);
	u64 fm = shl(f, z).hi; /* |f| = fm * 2^(-64 - z) */
	return {q & 3, normalised(below, PIO2_W.e - z, mulhi(fm, PIO2_W.m))};
}

/* r^2 in 2^-32 units. */
u32 square(Wide r)
{
	int sh = 31 - r.e; /* r in 2^-32 units is m >> sh; r.e <= -1 */
	u32 r32 = sh < 64 ? u32(r.m >> sh) : 0;
	return mulhi(r32, r32);
}

/* sin r, |r| <= pi/4, r^2 = r2 (in 2^-32). */
Wide sin_kernel(Wide r, u32 r2)
{
	u32 acc = SINF_C[4];
	for (int i = 3; i >= 0; i--)
		acc = SINF_C[i] - mulhi(r2, acc);
	u64 d = u64(mulhi(r2, acc)) << 32; /* 1 - sin(r) / r, in 2^-64 */
	return normalised(r.neg, r.e, r.m - mulhi(r.m, d));
}

/* cos r, |r| <= pi/4, r^2 = r2 (in 2^-32). */
Wide cos_kernel(u32 r2)
{
	u32 acc = COSF_C[4];
	for (int i = 3; i >= 0; i--)
		acc = COSF_C[i] - mulhi(r2, acc);
	u32 d = mulhi(r2, acc); /* 1 - cos r, in 2^-32 */
	if (d == 0)
		return {false, 0, u64(1) << 63};
	return normalised(false, -1, u64(0u - d) << 32);
}

Wide negated(Wide w)
{
	w.neg = !w.neg;
	return w;
}

/* sin x and cos x from the reduction of |x|; sin_neg: x < 0. */
void sincos_wide(u32 a, bool sin_neg, Wide *sin_out, Wide *cos_out)
{
	Reduced red = reduce(a);
	u32 r2 = square(red.r);
	Wide s = sin_kernel(red.r, r2), c = cos_kernel(r2);
	/* sin(q pi/2 + r), cos(q pi/2 + r) */
	switch (red.q) {
	case 0:
		break;
	case 1: {
		Wide t = s;
		s = c;
		c = negated(t);
		break;
	}
	case 2:
		s = negated(s);
		c = negated(c);
		break;
	default: {
		Wide t = s;
		s = negated(c);
		c = t;
		break;
	}
	}
	if (sin_neg)
		s = negated(s);
	if (sin_out)
		*sin_out = s;
	if (cos_out)
		*cos_out = c;
}

/* a / b for nonzero wide values, to 32 bits. */
Wide divide(Wide a, Wide b)
{
	if (b.m == 0) /* only for an exact zero of sin, which no float argument has */
		return {a.neg != b.neg, 0x10000, u64(1) << 63};
	u32 an = u32(a.m >> 32), bn = u32(b.m >> 32), rem;
	bool big = an >= bn; /* the quotient of the significands is in [1, 2) */
	u32 q = big ? udiv64by32(an >> 1, an << 31, bn, &rem) : udiv64by32(an, 0, bn, &rem);
	return normalised(a.neg != b.neg, a.e - b.e + (big ? 0 : -1), u64(q) << 32 | (rem != 0));
}

} // namespace

extern "C" float Q7_MATH(sinf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(F32_QNAN);
	if (a == 0)
		return x;
	Wide s;
	sincos_wide(a, u != a, &s, nullptr);
	return round_f32(s);
}

extern "C" float Q7_MATH(cosf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(F32_QNAN);
	if (a == 0)
		return f32(F32_ONE);
	Wide c;
	sincos_wide(a, false, nullptr, &c);
	return round_f32(c);
}

extern "C" void Q7_MATH(sincosf)(float x, float *sin_x, float *cos_x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF) {
		*sin_x = *cos_x = a > F32_INF ? quiet(u) : f32(F32_QNAN);
		return;
	}
	if (a == 0) {
		*sin_x = x;
		*cos_x = f32(F32_ONE);
		return;
	}
	Wide s, c;
	sincos_wide(a, u != a, &s, &c);
	*sin_x = round_f32(s);
	*cos_x = round_f32(c);
}

extern "C" float Q7_MATH(tanf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(F32_QNAN);
	if (a == 0)
		return x;
	Wide s, c;
	sincos_wide(a, u != a, &s, &c);
	return round_f32(divide(s, c));
}
