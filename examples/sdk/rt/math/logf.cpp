/* logf.cpp - logf, log2f and log10f (README.md in this directory, "Algorithms"): x = m' * 2^e
 * with m' in [0.75, 1.5); m' = c * (1 + r) with c = 1 + k/128 the nearest table point, 1/c
 * taken to 10 bits so that r = m' * (1/c) - 1 is exact; ln x = e ln 2 - ln(1/c) + ln(1 + r),
 * ln(1 + r) = r * Q(r) with Q a degree-4 polynomial evaluated in 32-bit fixed point on |r|.
 * Near 1 (e = 0, k = 0) the result is r * Q(r) with r exact, so its relative error stays
 * small however close x is to 1; elsewhere the terms are summed in 2^-55 units. log2f and
 * log10f scale the natural logarithm by log2(e) and log10(e). */
#include "fixed.h"
#include "tables.h"

namespace {

using namespace q7m;

/* ln x for a positive finite nonzero float given by its bits. */
Wide log_wide(u32 a)
{
	Unpacked32 p = unpack(a);
	/* m' = A / 2^24 in [0.75, 1.5), x = m' * 2^e */
	u32 A = p.m >= 0xc00000u ? p.m : p.m << 1;
	int e = p.m >= 0xc00000u ? p.e + 1 : p.e;
	int k = (int(A) - (1 << 24) + (1 << 16)) >> 17; /* -32..64, round((m' - 1) * 128) */
	/* r = m' / c - 1 in 2^-34 units, exact: A * (2^10 / c) - 2^34, |r| < 2^-7.3 */
	i64 r = i64(mul32x32(A, LOGF_INV[k + 32])) - (i64(1) << 34);
	bool rneg = r < 0;
	u32 rho = u32(rneg ? -r : r);
	Wide l1 = {rneg, 0, 0};
	if (rho) {
		/* |ln(1 + r)| = rho * (1 - d) for r > 0, rho * (1 + d) for r < 0 */
		u32 rho32 = rho >> 2; /* 2^-32 units */
		u32 acc = LOGF_Q[3];
		for (int i = 2; i >= 0; i--)
			acc = rneg ? LOGF_Q[i] + mulhi(rho32, acc) : LOGF_Q[i] - mulhi(rho32, acc);
		u64 d = u64(mulhi(rho32, acc)) << 32; /* 2^-64 units, below 2^-7 */
		int s = clz32(rho);
		u64 R = u64(rho << s) << 31;          /* rho = R * 2^(-s - 65), bit 62 set */
		u64 m = rneg ? R + mulhi(R, d) : R - mulhi(R, d);
		l1 = normalised(rneg, -2 - s, m);
	}
	if (e == 0 && k == 0)
		return l1;
	/* e ln2 + ln(c) + ln(1 + r) in 2^-55 units (|ln x| < 104 < 2^8) */
	u32 ae = u32(e < 0 ? -e : e);
	i64 s = i64(mul32x32(ae, u32(LN2_55)) + (mul32x32(ae, u32(LN2_55 >> 32)) << 32));
	if (e < 0)
		s = -s;
	s += LOGF_T55[k + 32];
	if (l1.m) {
		i64 t = i64(l1.m >> (8 - l1.e));
		s += l1.neg ? -t : t;
	}
	bool neg = s < 0;
	return normalised(neg, 8, u64(neg ? -s : s));
}

/* ln x, times `scale` when given (log2(e) for log2, log10(e) for log10): NaN for x < 0, -inf
 * for +-0, +inf for +inf, x quieted for a NaN. */
float log_base(float x, const Wide *scale)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	if (a > F32_INF)
		return quiet(u);
	if (a == 0)
		return f32(F32_SIGN | F32_INF);
	if (u != a)
		return f32(F32_QNAN);
	if (a == F32_INF)
		return x;
	Wide w = log_wide(u);
	if (scale && w.m)
		w = normalised(w.neg, w.e + scale->e + 1, mulhi(w.m, scale->m));
	return round_f32(w);
}

} // namespace

extern "C" float Q7_MATH(logf)(float x)
{
	return log_base(x, nullptr);
}

extern "C" float Q7_MATH(log2f)(float x)
{
	return log_base(x, &LOG2E_W);
}

extern "C" float Q7_MATH(log10f)(float x)
{
	return log_base(x, &LOG10E_W);
}
