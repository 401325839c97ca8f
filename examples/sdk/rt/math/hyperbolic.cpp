/* hyperbolic.cpp - sinh, cosh and tanh (README.md in this directory, "Algorithms"): as
 * hyperbolicf.cpp on 64-bit words: below 1/2 the series to x^19/19! and x^18/18!, tanh = sinh /
 * cosh; from 1/2 on, e^|x| and e^-|x| as exp computes them, summed in 2^-91 units (e^-|x| left
 * out from 22 on, where it is below 2^-63 of the result), tanh |x| = (1 - e^-2|x|) /
 * (1 + e^-2|x|). */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

using namespace q7m;

namespace {

/* x^2 in 2^-64 units for |x| = r < 1/2. */
u64 square(Wide r)
{
	int sh = -1 - r.e;
	u64 r64 = sh < 64 ? r.m >> sh : 0;
	return mulhi(r64, r64);
}

/* sinh r for |r| < 1/2 (r's sign kept), its series. */
Wide sinh_series(Wide r, u64 r2)
{
	u64 acc = SIN_C64[8];
	for (int i = 7; i >= 0; i--)
		acc = SIN_C64[i] + mulhi(r2, acc);
	u64 d = mulhi(r2, acc); /* sinh(r) / r - 1, in 2^-64 */
	u64 half = r.m >> 1;
	return normalised(r.neg, r.e + 1, half + mulhi(half, d));
}

/* cosh r for |r| < 1/2, its series. */
Wide cosh_series(u64 r2)
{
	u64 acc = COS_C64[8];
	for (int i = 7; i >= 0; i--)
		acc = COS_C64[i] + mulhi(r2, acc);
	u64 d = mulhi(r2, acc); /* cosh r - 1, in 2^-64 */
	return {false, 0, (u64(1) << 63) + (d >> 1)};
}

/* w in 2^-91 units. */
U128 fixed91(Wide w)
{
	int s = w.e + 28;
	return s >= 0 ? shl(U128{0, w.m}, s) : U128{0, w.m >> -s};
}

/* (e^|x| +- e^-|x|) / 2 for 1/2 <= |x| < 22 (bits a). */
Wide128 half_sum_of_exps(u64 a, bool neg, bool difference)
{
	U128 big = fixed91(exp_wide64(a, false)), small = fixed91(exp_wide64(a, true));
	return normalised(neg, 35, difference ? sub(big, small) : add(big, small));
}

} // namespace

extern "C" double Q7_MATH(sinh)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	bool neg = u != a;
	if (a > F64_INF)
		return quiet(u);
	if (a == 0 || a == F64_INF)
		return x;
	if (a < 0x3fe0000000000000ull) { /* |x| < 1/2 */
		Unpacked64 p = unpack(a);
		Wide r = {neg, p.e, p.m << 11};
		return round_f64(sinh_series(r, square(r)));
	}
	if (a >= 0x4087500000000000ull) /* |x| >= 746 overflows */
		return f64((u & F64_SIGN) | F64_INF);
	if (a >= 0x4036000000000000ull) { /* |x| >= 22: e^|x| / 2 */
		Wide e = exp_wide64(a, false);
		e.e--;
		e.neg = neg;
		return round_f64(e);
	}
	return round_f64(narrowed(half_sum_of_exps(a, neg, true)));
}

extern "C" double Q7_MATH(cosh)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a == F64_INF)
		return f64(F64_INF);
	if (a < 0x3e40000000000000ull) /* |x| < 2^-27: 1 + x^2/2 rounds to 1 */
		return f64(F64_ONE);
	if (a < 0x3fe0000000000000ull) { /* |x| < 1/2 */
		Unpacked64 p = unpack(a);
		return round_f64(cosh_series(square(Wide{false, p.e, p.m << 11})));
	}
	if (a >= 0x4087500000000000ull)
		return f64(F64_INF);
	if (a >= 0x4036000000000000ull) {
		Wide e = exp_wide64(a, false);
		e.e--;
		return round_f64(e);
	}
	return round_f64(narrowed(half_sum_of_exps(a, false, false)));
}

extern "C" double Q7_MATH(tanh)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	bool neg = u != a;
	if (a > F64_INF)
		return quiet(u);
	if (a == 0)
		return x;
	if (a >= 0x4036000000000000ull) /* |x| >= 22: 1 - tanh|x| < 2^-62, +-1 (and +-inf) */
		return f64((u & F64_SIGN) | F64_ONE);
	if (a < 0x3fe0000000000000ull) { /* |x| < 1/2: sinh x / cosh x by their series */
		Unpacked64 p = unpack(a);
		Wide r = {neg, p.e, p.m << 11};
		u64 r2 = square(r);
		return round_f64(quotient(sinh_series(r, r2), cosh_series(r2)));
	}
	/* (1 - u) / (1 + u), u = e^-2|x| in 2^-63 units (2|x| is exact: the exponent plus one) */
	Wide e = exp_wide64(a + (u64(1) << 52), true);
	u64 v = -e.e < 64 ? e.m >> -e.e : 0;
	Wide num = normalised(neg, 0, (u64(1) << 63) - v), den = normalised(false, 0, (u64(1) << 63) + v);
	return round_f64(quotient(num, den));
}
