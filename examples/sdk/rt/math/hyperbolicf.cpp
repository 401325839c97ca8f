/* hyperbolicf.cpp - sinhf, coshf and tanhf (README.md in this directory, "Algorithms"): below
 * 1/2 the series sinh x = x (1 + x^2/3! + ... + x^10/11!) and cosh x = 1 + x^2/2! + ... +
 * x^10/10! in 32-bit fixed point (no cancellation, relative error kept however small x is),
 * tanh x = sinh x / cosh x; from 1/2 on, e^|x| and e^-|x| as expf computes them, sinh and cosh
 * their half difference and half sum (e^-|x| left out from 20 on, where it is below 2^-57 of
 * the result), tanh |x| = (1 - e^-2|x|) / (1 + e^-2|x|). */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

using namespace q7m;

namespace {

/* x^2 in 2^-32 units for |x| = r < 1/2. */
u32 square(Wide32 r)
{
	int sh = -1 - r.e;
	u32 r32 = sh < 32 ? r.m >> sh : 0;
	return mulhi(r32, r32);
}

/* sinh r for |r| < 1/2 (r's sign kept), its series. */
Wide sinh_series(Wide32 r, u32 r2)
{
	u32 acc = SINF_C[4];
	for (int i = 3; i >= 0; i--)
		acc = SINF_C[i] + mulhi(r2, acc);
	u32 d = mulhi(r2, acc); /* sinh(r) / r - 1, in 2^-32 */
	return normalised(r.neg, r.e + 32, u64(r.m) + mulhi(r.m, d));
}

/* cosh r for |r| < 1/2, its series. */
Wide32 cosh_series(u32 r2)
{
	u32 acc = COSF_C[4];
	for (int i = 3; i >= 0; i--)
		acc = COSF_C[i] + mulhi(r2, acc);
	u32 d = mulhi(r2, acc); /* cosh r - 1, in 2^-32 */
	return {false, 0, 0x80000000u + (d >> 1)};
}

/* e^|x| +- e^-|x| for 1/2 <= |x| < 20 (bits a), in 2^-34 units. */
u64 sum_of_exps(u32 a, bool difference)
{
	Wide e = exp_wide32(a, false), ei = exp_wide32(a, true);
	u64 big = e.m >> (29 - e.e), small = ei.m >> (29 - ei.e);
	return difference ? big - small : big + small;
}

} // namespace

extern "C" float Q7_MATH(sinhf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	bool neg = u != a;
	if (a > F32_INF)
		return quiet(u);
	if (a == 0 || a == F32_INF)
		return x;
	if (a < 0x3f000000u) { /* |x| < 1/2 */
		Unpacked32 p = unpack(a);
		Wide32 r = {neg, p.e, p.m << 8};
		return round_f32(sinh_series(r, square(r)));
	}
	if (a >= 0x42d00000u) /* |x| >= 104 overflows */
		return f32((u & F32_SIGN) | F32_INF);
	if (a >= 0x41a00000u) { /* |x| >= 20: e^|x| / 2 */
		Wide e = exp_wide32(a, false);
		e.e--;
		e.neg = neg;
		return round_f32(e);
	}
	return round_f32(normalised(neg, 28, sum_of_exps(a, true))); /* 2^-35 units */
}

extern "C" float Q7_MATH(coshf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a == F32_INF)
		return f32(F32_INF);
	if (a < 0x39800000u) /* |x| < 2^-12: 1 + x^2/2 rounds to 1 */
		return f32(F32_ONE);
	if (a >= 0x42d00000u)
		return f32(F32_INF);
	if (a >= 0x41a00000u) {
		Wide e = exp_wide32(a, false);
		e.e--;
		return round_f32(e);
	}
	return round_f32(normalised(false, 28, sum_of_exps(a, false)));
}

extern "C" float Q7_MATH(tanhf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	bool neg = u != a;
	if (a > F32_INF)
		return quiet(u);
	if (a == 0)
		return x;
	if (a >= 0x41180000u) /* |x| >= 9.5: 1 - tanh|x| < 2^-26, +-1 (and +-inf) */
		return f32((u & F32_SIGN) | F32_ONE);
	if (a < 0x3f000000u) { /* |x| < 1/2: sinh x / cosh x by their series */
		Unpacked32 p = unpack(a);
		Wide32 r = {neg, p.e, p.m << 8};
		u32 r2 = square(r);
		return round_f32(quotient(narrowed32(sinh_series(r, r2)), cosh_series(r2)));
	}
	/* (1 - u) / (1 + u), u = e^-2|x| in 2^-63 units (2|x| is exact: the exponent plus one) */
	Wide e = exp_wide32(a + 0x00800000u, true);
	u64 v = e.m >> -e.e;
	Wide num = normalised(neg, 0, (u64(1) << 63) - v), den = normalised(false, 0, (u64(1) << 63) + v);
	return round_f32(quotient(narrowed32(num), narrowed32(den)));
}
