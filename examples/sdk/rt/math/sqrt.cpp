/* sqrt.cpp - sqrtf and sqrt, correctly rounded (README.md in this directory, "Algorithms"):
 * the square root of the significand, scaled to an even exponent, digit by digit (two bits of
 * the radicand per result bit), one bit more than the format keeps; the remainder says whether
 * anything lies below it. A square root is never exactly halfway between two floats, so that
 * extra bit and the remainder round it. */
#include "fixed.h"

namespace {

using namespace q7m;

/* The BITS-bit integer square root, rounded down, of the 2 * BITS-bit radicand whose leading
 * bits are those of `top` (from its most significant bit down) and the rest zeros; *inexact
 * when the root is not exact (a nonzero remainder). */
template <class U, int BITS> U root(U top, bool *inexact)
{
	const int W = sizeof(U) * 8;
	U res = 0, rem = 0;
	for (int i = 0; i < BITS; i++) {
		rem = (rem << 2) | (top >> (W - 2));
		top <<= 2;
		U t = (res << 2) | 1;
		res <<= 1;
		if (rem >= t) {
			rem -= t;
			res |= 1;
		}
	}
	*inexact = rem != 0;
	return res;
}

} // namespace

extern "C" float Q7_MATH(sqrtf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a == 0 || u == F32_INF) /* +-0, +inf */
		return x;
	if (u != a)
		return f32(F32_QNAN);
	Unpacked32 p = unpack(a);
	/* x = m' 2^(e' - 23) with e' even, m' < 2^25; sqrt x = sqrt(m' 2^25) 2^(e'/2 - 24) */
	int odd = p.e & 1;
	u32 m = p.m << odd;
	bool inexact;
	u32 q = root<u32, 25>(m << 7, &inexact); /* in [2^24, 2^25) */
	return round_f32(Wide{false, (p.e - odd) / 2, u64(q) << 39 | inexact});
}

extern "C" double Q7_MATH(sqrt)(double x)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a == 0 || u == F64_INF)
		return x;
	if (u != a)
		return f64(F64_QNAN);
	Unpacked64 p = unpack(a);
	/* x = m' 2^(e' - 52) with e' even, m' < 2^54; sqrt x = sqrt(m' 2^54) 2^(e'/2 - 53) */
	int odd = p.e & 1;
	u64 m = p.m << odd;
	bool inexact;
	u64 q = root<u64, 54>(m << 10, &inexact); /* in [2^53, 2^54) */
	return round_f64(Wide{false, (p.e - odd) / 2, q << 10 | inexact});
}
