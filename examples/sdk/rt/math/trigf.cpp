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
	Wide32 r;
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

/* The top 32 bits of hi:lo shifted left by z (0 <= z < 32). */
u32 funnel(u32 hi, u32 lo, int z)
{
	return z ? hi << z | lo >> (32 - z) : hi;
}

/* The reduction of |x| (bits a, finite and nonzero). */
Reduced reduce(u32 a)
{
	Unpacked32 p = unpack(a);
	if (a < 0x3f490fdbu) /* |x| < pi/4: r = x */
		return {0, {false, p.e, p.m << 8}};
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
	/* the fraction, f2:f1:f0 in 2^-96 units; at least its top 70 bits are right */
	u32 f2 = window(L, point - 32), f1 = window(L, point - 64), f0 = window(L, point - 96);
	bool below = f2 >> 31;
	if (below) { /* round to the nearest quadrant: |f - 1| = 2^96 - f2:f1:f0 */
		q++;
		f0 = 0u - f0;
		f1 = ~f1 + (f0 == 0);
		f2 = ~f2 + (f0 == 0 && f1 == 0);
	}
	/* |f| normalised to 32 bits: |f| = fm * 2^(-32 - z) */
	int z;
	u32 fm;
	if (f2) {
		z = clz32(f2);
		fm = funnel(f2, f1, z);
	} else if (f1) {
		z = clz32(f1);
		fm = funnel(f1, f0, z);
		z += 32;
	} else if (f0) {
		z = clz32(f0) + 64;
		fm = f0 << (z - 64);
	} else {
		return {q & 3, {below, 0, 0}};
	}
	/* r = |f| pi/2 */
	u32 pio2 = u32((PIO2_W.m + 0x80000000u) >> 32); /* pi/2 in 2^-31 */
	return {q & 3, normalised(below, PIO2_W.e - z, mulhi(fm, pio2))};
}

/* r^2 in 2^-32 units. */
u32 square(Wide32 r)
{
	int sh = -1 - r.e; /* r in 2^-32 units is m >> sh; r.e <= -1 */
	u32 r32 = sh < 32 ? r.m >> sh : 0;
	return mulhi(r32, r32);
}

/* sin(k pi/2 + r), |r| <= pi/4, r^2 = r2 (in 2^-32): +-sin r for even k, +-cos r for odd. */
Wide32 sin_quadrant(u32 k, Wide32 r, u32 r2)
{
	bool neg = k & 2;
	if (k & 1) { /* cos r = 1 - r^2/2! + ... - r^10/10! */
		u32 acc = COSF_C[4];
		for (int i = 3; i >= 0; i--)
			acc = COSF_C[i] - mulhi(r2, acc);
		u32 d = mulhi(r2, acc); /* 1 - cos r, in 2^-32 */
		return d ? Wide32{neg, -1, 0u - d} : Wide32{neg, 0, 0x80000000u};
	}
	/* sin r = r (1 - r^2/3! + ... - r^10/11!) */
	u32 acc = SINF_C[4];
	for (int i = 3; i >= 0; i--)
		acc = SINF_C[i] - mulhi(r2, acc);
	u32 d = mulhi(r2, acc); /* 1 - sin(r) / r, in 2^-32 */
	return normalised(r.neg != neg, r.e, r.m - mulhi(r.m, d));
}

/* sin x for |x| given by its bits a (finite, nonzero) and x < 0 given by neg, or, with cos set,
 * cos x. */
Wide32 sin_or_cos(u32 a, bool neg, bool cos)
{
	Reduced red = reduce(a);
	Wide32 w = sin_quadrant(red.q + cos, red.r, square(red.r));
	w.neg = w.neg != (neg && !cos);
	return w;
}

} // namespace

extern "C" float Q7_MATH(sinf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(F32_QNAN);
	if (a == 0)
		return x;
	return round_f32(sin_or_cos(a, u != a, false));
}

extern "C" float Q7_MATH(cosf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(F32_QNAN);
	if (a == 0)
		return f32(F32_ONE);
	return round_f32(sin_or_cos(a, false, true));
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
	Reduced red = reduce(a);
	u32 r2 = square(red.r);
	Wide32 s = sin_quadrant(red.q, red.r, r2), c = sin_quadrant(red.q + 1, red.r, r2);
	s.neg = s.neg != (u != a);
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
	/* tan(q pi/2 + r) = sin r / cos r for even q, -cos r / sin r for odd q */
	Reduced red = reduce(a);
	u32 r2 = square(red.r);
	Wide32 s = sin_quadrant(red.q & 1, red.r, r2), c = sin_quadrant((red.q & 1) + 1, red.r, r2);
	if (s.m == 0 || c.m == 0) /* an exact zero of sin r, which no float argument has */
		return f32(u & F32_SIGN);
	/* s / c: the quotient of the significands, 32 bits, in [1/2, 2) */
	u32 rem;
	bool big = s.m >= c.m;
	u32 q = big ? udiv64by32(s.m >> 1, s.m << 31, c.m, &rem) : udiv64by32(s.m, 0, c.m, &rem);
	Wide w = normalised(s.neg != c.neg, s.e - c.e - !big, u64(q) << 32 | (rem != 0));
	w.neg = w.neg != (u != a);
	return round_f32(w);
}
