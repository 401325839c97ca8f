/* atan.cpp - atanf, atan2f, asinf, acosf and atan, atan2, asin, acos (README.md in this
 * directory, "Algorithms"), on 64-bit words for both formats. atan t for 0 <= t <= 1: below
 * 2^-6 its series t (1 - t^2/3 + ... + t^12/13); above, t = c + (t - c) with c = j/64 the
 * nearest table point, atan t = atan c + atan d, d = (t - c) / (1 + t c) (|d| < 2^-7, by the
 * series). atan2(y, x) takes atan of the smaller of |y|/|x| and |x|/|y| (pi/2 less it for the
 * larger) and places it in its quadrant; asin x = atan2(x, sqrt(1 - x^2)), acos x =
 * atan2(sqrt(1 - x^2), x), with 1 - x^2 from the exact square of x on 128 bits. */
#include "fixed.h"
#include "tables.h"

using namespace q7m;

namespace {

/* atan w for |w| < 2^-6 (w's sign kept), its series. */
Wide atan_series(Wide w)
{
	int sh = -1 - w.e;
	u64 w64 = sh < 64 ? w.m >> sh : 0;
	u64 w2 = mulhi(w64, w64); /* 2^-64 units */
	u64 acc = ATAN_Q64[5];
	for (int i = 4; i >= 0; i--)
		acc = ATAN_Q64[i] - mulhi(w2, acc);
	u64 d = mulhi(w2, acc); /* 1 - atan(w) / w, in 2^-64 */
	return normalised(w.neg, w.e, w.m - mulhi(w.m, d));
}

/* atan t for 0 <= t <= 1. */
Wide atan_unit(Wide t)
{
	if (t.m == 0 || t.e < -6)
		return atan_series(t);
	u64 T = t.m >> (1 - t.e);                      /* t in 2^-62 units */
	u32 j = u32((T + (u64(1) << 55)) >> 56);        /* round(64 t), 1..64 */
	i64 num = i64(T) - i64(u64(j) << 56);           /* t - c */
	U128 tc = mul64x64(T, j); /* t c in 2^-68 units, below 2^69 */
	u64 den = (u64(1) << 62) + (tc.lo >> 6 | tc.hi << 58); /* 1 + t c, in 2^-62 units */
	Wide d = quotient(normalised(num < 0, 1, u64(num < 0 ? -num : num)), normalised(false, 1, den));
	Wide ad = num ? atan_series(d) : Wide{false, 0, 0};
	/* atan c + atan d in 2^-64 units */
	u64 sum = ATAN_T64[j];
	if (ad.m) {
		int sh = -1 - ad.e;
		u64 v = sh < 64 ? ad.m >> sh : 0;
		sum = ad.neg ? sum - v : sum + v;
	}
	return normalised(false, -1, sum);
}

/* pi/2 - w for 0 <= w <= pi/2, in 2^-63 units. */
Wide half_pi_minus(Wide w)
{
	int sh = -w.e;
	u64 v = w.m && sh < 64 ? w.m >> sh : 0;
	return normalised(false, 0, PIO2_W.m - v);
}

/* atan(num / den) for num, den > 0 (num.neg and den.neg clear), in [0, pi/2]. */
Wide atan_ratio(Wide num, Wide den)
{
	bool small = num.e < den.e || (num.e == den.e && num.m <= den.m);
	if (small)
		return atan_unit(quotient(num, den));
	return half_pi_minus(atan_unit(quotient(den, num)));
}

/* atan2 for finite nonzero |y| and |x|: atan(|y| / |x|), or pi less it for x < 0, y's sign. */
Wide atan2_finite(Wide y, Wide x)
{
	Wide a = atan_ratio(Wide{false, y.e, y.m}, Wide{false, x.e, x.m});
	if (x.neg) { /* pi - a, in 2^-62 units */
		int sh = 1 - a.e;
		u64 v = a.m && sh < 64 ? a.m >> sh : 0;
		a = normalised(false, 1, PIO2_W.m - v);
	}
	a.neg = y.neg;
	return a;
}

/* sqrt(1 - x^2) for |x| = m 2^(e - 52) < 1, m with bit 52 set. */
Wide sqrt_one_minus_square(u64 m, int e)
{
	if (e < -30) /* x^2 < 2^-60: the root is 1 to 2^-61 */
		return {false, 0, u64(1) << 63};
	/* x^2 = m^2 2^(2e - 104), in 2^-126 units: m^2 shifted by 2e + 22 (at most 20) */
	U128 sq = mul64x64(m, m);
	int s = 2 * e + 22;
	sq = s >= 0 ? shl(sq, s) : shr(sq, -s);
	U128 p = sub(U128{u64(1) << 62, 0}, sq); /* 1 - x^2, in 2^-126 units, > 0 */
	/* sqrt(p 2^-126) = sqrt(P) 2^(-z/2 - 63), P = p << z in [2^126, 2^128), z even */
	int z = clz128(p) & ~1;
	u64 top = shl(p, z).hi;
	u64 res = 0, rem = 0; /* floor(sqrt(top 2^56)), 60 bits: two radicand bits a step */
	for (int i = 0; i < 60; i++) {
		rem = (rem << 2) | (top >> 62);
		top <<= 2;
		u64 t = (res << 2) | 1;
		res <<= 1;
		if (rem >= t) {
			rem -= t;
			res |= 1;
		}
	}
	/* sqrt(P) = 16 res, so the root is res 2^(-59 - z/2) */
	return normalised(false, 4 - z / 2, res);
}

/* One argument of the functions below: its sign, and |x| as a Wide and as m 2^(e - 52). */
struct Arg {
	bool neg;
	Wide w;
	u64 m;
	int e;
};

Arg arg(u64 m, int e, bool neg)
{
	return {neg, {neg, e, m << 11}, m, e};
}

/* atan x for finite nonzero x. */
Wide atan_wide(Arg x)
{
	Wide ax = {false, x.w.e, x.w.m};
	Wide a = x.e < 0 ? atan_unit(ax) : atan_ratio(ax, Wide{false, 0, u64(1) << 63});
	a.neg = x.neg;
	return a;
}

/* asin x for 0 < |x| < 1. */
Wide asin_wide(Arg x)
{
	Wide a = atan_ratio(Wide{false, x.w.e, x.w.m}, sqrt_one_minus_square(x.m, x.e));
	a.neg = x.neg;
	return a;
}

/* acos x for 0 < |x| < 1. */
Wide acos_wide(Arg x)
{
	return atan2_finite(sqrt_one_minus_square(x.m, x.e), x.w);
}

/* The class of an argument. */
enum Class { FINITE, ZERO, INFINITE, NAN_ };

template <class U> Class classify(U a, U inf)
{
	return a > inf ? NAN_ : a == inf ? INFINITE : a == 0 ? ZERO : FINITE;
}

/* pi/2 or pi (as Wide), with a sign. */
Wide half_pi(bool neg)
{
	return {neg, 0, PIO2_W.m};
}
Wide pi(bool neg)
{
	return {neg, 1, PIO2_W.m};
}

/* atan2 of two classified arguments (C99 Annex F.9.1.4), finite nonzero ones through
 * atan2_finite; NaNs are handled by the callers. */
Wide atan2_classes(Class cy, Wide y, Class cx, Wide x)
{
	if (cy == ZERO) /* +-0 for x > 0 and +0; +-pi for x < 0 and -0 */
		return x.neg ? pi(y.neg) : Wide{y.neg, 0, 0};
	if (cx == ZERO)
		return half_pi(y.neg);
	if (cy == INFINITE) {
		if (cx != INFINITE)
			return half_pi(y.neg);
		/* +-pi/4, +-3pi/4: pi/4 = PIO2 / 2; 3pi/4 = 3 PIO2 / 2 */
		if (!x.neg)
			return {y.neg, -1, PIO2_W.m};
		return normalised(y.neg, 1, (PIO2_W.m >> 1) + (PIO2_W.m >> 2));
	}
	if (cx == INFINITE) /* finite y */
		return x.neg ? pi(y.neg) : Wide{y.neg, 0, 0};
	return atan2_finite(y, x);
}

} // namespace

/* ---- float ---- */

namespace {

Arg arg32(u32 a, bool neg)
{
	Unpacked32 p = unpack(a);
	return arg(u64(p.m) << 29, p.e, neg);
}

} // namespace

extern "C" float Q7_MATH(atanf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a == 0)
		return x;
	if (a == F32_INF)
		return round_f32(half_pi(u != a));
	return round_f32(atan_wide(arg32(a, u != a)));
}

extern "C" float Q7_MATH(atan2f)(float y, float x)
{
	u32 uy = bits(y), ux = bits(x), ay = uy & ~F32_SIGN, ax = ux & ~F32_SIGN;
	if (ay > F32_INF)
		return quiet(uy);
	if (ax > F32_INF)
		return quiet(ux);
	Class cy = classify(ay, F32_INF), cx = classify(ax, F32_INF);
	Wide wy = cy == FINITE ? arg32(ay, uy != ay).w : Wide{uy != ay, 0, 0};
	Wide wx = cx == FINITE ? arg32(ax, ux != ax).w : Wide{ux != ax, 0, 0};
	return round_f32(atan2_classes(cy, wy, cx, wx));
}

extern "C" float Q7_MATH(asinf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a > F32_ONE)
		return f32(F32_QNAN);
	if (a == 0)
		return x;
	if (a == F32_ONE)
		return round_f32(half_pi(u != a));
	return round_f32(asin_wide(arg32(a, u != a)));
}

extern "C" float Q7_MATH(acosf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a > F32_ONE)
		return f32(F32_QNAN);
	if (a == 0)
		return round_f32(half_pi(false));
	if (a == F32_ONE)
		return u == a ? f32(0) : round_f32(pi(false));
	return round_f32(acos_wide(arg32(a, u != a)));
}

/* ---- double ---- */

namespace {

Arg arg64(u64 a, bool neg)
{
	Unpacked64 p = unpack(a);
	return arg(p.m, p.e, neg);
}

} // namespace

extern "C" double Q7_MATH(atan)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a == 0)
		return x;
	if (a == F64_INF)
		return round_f64(half_pi(u != a));
	return round_f64(atan_wide(arg64(a, u != a)));
}

extern "C" double Q7_MATH(atan2)(double y, double x)
{
	u64 uy = bits(y), ux = bits(x), ay = uy & ~F64_SIGN, ax = ux & ~F64_SIGN;
	if (ay > F64_INF)
		return quiet(uy);
	if (ax > F64_INF)
		return quiet(ux);
	Class cy = classify(ay, F64_INF), cx = classify(ax, F64_INF);
	Wide wy = cy == FINITE ? arg64(ay, uy != ay).w : Wide{uy != ay, 0, 0};
	Wide wx = cx == FINITE ? arg64(ax, ux != ax).w : Wide{ux != ax, 0, 0};
	return round_f64(atan2_classes(cy, wy, cx, wx));
}

extern "C" double Q7_MATH(asin)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a > F64_ONE)
		return f64(F64_QNAN);
	if (a == 0)
		return x;
	if (a == F64_ONE)
		return round_f64(half_pi(u != a));
	return round_f64(asin_wide(arg64(a, u != a)));
}

extern "C" double Q7_MATH(acos)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a > F64_ONE)
		return f64(F64_QNAN);
	if (a == 0)
		return round_f64(half_pi(false));
	if (a == F64_ONE)
		return u == a ? f64(0) : round_f64(pi(false));
	return round_f64(acos_wide(arg64(a, u != a)));
}
