/* powf.cpp - powf (README.md in this directory, "Algorithms"): |x|^y = 2^(y log2 |x|), with
 * log2 |x| to 64-bit precision (the table reduction of logf.cpp, the series evaluated on 64-bit
 * words, and the exponent added exactly) so that y log2 |x|, up to 2^8 in magnitude, keeps an
 * absolute error near 2^-54; then 2^t as expf.cpp computes it. The special cases are those of
 * C99 Annex F.9.4.4. */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

namespace q7m {

Wide log2_wide64(u32 m, int e)
{
	/* m' = A / 2^24 in [0.75, 1.5) */
	u32 A = m >= 0xc00000u ? m : m << 1;
	if (m >= 0xc00000u)
		e++;
	int k = (int(A) - (1 << 24) + (1 << 16)) >> 17;
	i64 r = i64(mul32x32(A, LOGF_INV[k + 32])) - (i64(1) << 34); /* 2^-34 units, exact */
	bool rneg = r < 0;
	u32 rho = u32(rneg ? -r : r);
	Wide l1 = {rneg, 0, 0};
	if (rho) {
		/* |ln(1 + r)| = rho * (1 -+ d), d = rho (1/2 -+ rho (1/3 -+ ... rho / 6)) */
		u64 rho64 = u64(rho) << 30; /* 2^-64 units */
		u64 acc = LOG_Q64[4];
		for (int i = 3; i >= 0; i--)
			acc = rneg ? LOG_Q64[i] + mulhi(rho64, acc) : LOG_Q64[i] - mulhi(rho64, acc);
		u64 d = mulhi(rho64, acc);
		int s = clz32(rho);
		u64 R = u64(rho << s) << 31; /* rho = R * 2^(-s - 65), bit 62 set */
		u64 lm = rneg ? R + mulhi(R, d) : R - mulhi(R, d);
		l1 = normalised(rneg, -2 - s, lm);
		/* times log2(e) */
		l1 = normalised(rneg, l1.e + LOG2E_W.e + 1, mulhi(l1.m, LOG2E_W.m));
	}
	if (e == 0 && k == 0)
		return l1;
	/* e + log2(c) + log2(1 + r) in 2^-55 units (|log2 x| < 150 < 2^8) */
	i64 s = (i64(e) << 55) + LOG2F_T55[k + 32];
	if (l1.m) {
		i64 t = i64(l1.m >> (8 - l1.e));
		s += l1.neg ? -t : t;
	}
	bool neg = s < 0;
	return normalised(neg, 8, u64(neg ? -s : s));
}

} // namespace q7m

using namespace q7m;

namespace {

/* What kind of number a finite nonzero float is, by its absolute bits. */
enum Parity { NOT_INTEGER, ODD, EVEN };
Parity parity(u32 a)
{
	int e = int(a >> 23) - 127;
	if (e < 0)
		return NOT_INTEGER;
	if (e > 23)
		return EVEN;
	u32 m = (a & 0x7fffffu) | 0x800000u;
	if (m & ((1u << (23 - e)) - 1))
		return NOT_INTEGER;
	return (m >> (23 - e)) & 1 ? ODD : EVEN;
}

} // namespace

extern "C" float Q7_MATH(powf)(float x, float y)
{
	u32 ux = bits(x), uy = bits(y), ax = ux & ~F32_SIGN, ay = uy & ~F32_SIGN;
	if (ay == 0 || ux == F32_ONE) /* x^0 = 1 and 1^y = 1, also for a NaN */
		return f32(F32_ONE);
	if (ax > F32_INF)
		return quiet(ux);
	if (ay > F32_INF)
		return quiet(uy);
	bool yneg = uy != ay;
	if (ay == F32_INF) {
		if (ax == F32_ONE) /* (-1)^+-inf = 1 */
			return f32(F32_ONE);
		/* |x| > 1: +inf for +inf, +0 for -inf; |x| < 1 the other way round */
		return f32((ax > F32_ONE) != yneg ? F32_INF : 0);
	}
	Parity py = parity(ay);
	u32 sign = ux != ax && py == ODD ? F32_SIGN : 0;
	if (ax == 0) /* +-0: +-0 or +-inf, the sign only for an odd integer y */
		return f32(sign | (yneg ? F32_INF : 0));
	if (ax == F32_INF)
		return f32(sign | (yneg ? 0 : F32_INF));
	if (ux != ax && py == NOT_INTEGER) /* a negative number to a non-integer power */
		return f32(F32_QNAN);

	Unpacked32 px = unpack(ax), pyu = unpack(ay);
	Wide l = log2_wide64(px.m, px.e);
	if (l.m == 0) /* |x| = 1 */
		return f32(sign | F32_ONE);
	/* z = y log2|x| */
	Wide z = normalised(l.neg != yneg, l.e + pyu.e + 1, mulhi(l.m, u64(pyu.m) << 40));
	if (z.e >= 8) /* |z| >= 256: overflow or total underflow */
		return f32(sign | (z.neg ? 0 : F32_INF));
	int sh = 8 - z.e; /* z in 2^-55 units */
	i64 t = sh < 64 ? i64(z.m >> sh) : 0;
	if (z.neg)
		t = -t;
	Wide w = exp2_wide32(int(t >> 55), u32(t >> 23));
	w.neg = sign != 0;
	return round_f32(w);
}
