/* log.cpp - log, log2 and log10 (README.md in this directory, "Algorithms"): the table
 * reduction of logf.cpp on the 53-bit significand, r = m' (1/c) - 1 exact in 2^-63 units, and
 * ln(1 + r) = r - r^2/2 + r^3 P(r) carried on 128 bits: r and r^2/2 exactly, r^3 P(r) (P the
 * series 1/3 - r/4 + ... + r^8/11) from 64-bit words scaled to r^2, so that its error stays
 * below 2^-75 of r. Near 1 (e = 0, k = 0) that is the result, with its relative error however
 * close x is to 1; elsewhere e ln 2 + ln c + ln(1 + r) is summed in 2^-116 units. log2 and
 * log10 scale ln x by 128-bit log2(e) and log10(e); pow.cpp takes log2 from here too. */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

namespace {

using namespace q7m;

/* ln(1 + r) for r in 2^-63 units, exact, |r| < 2^-7.3. */
Wide128 log1p_wide128(i64 r)
{
	bool neg = r < 0;
	u64 rho = neg ? -u64(r) : u64(r);
	if (rho == 0)
		return {false, 0, {0, 0}};
	/* P(rho) = 1/3 -+ rho/4 + rho^2/5 -+ ... (+ for r < 0: every term of ln(1 - rho) has the
	 * sign of -rho), in 2^-64 units */
	u64 rho64 = rho << 1;
	u64 p = LOG_Q64[9];
	for (int i = 8; i >= 1; i--)
		p = neg ? LOG_Q64[i] + mulhi(rho64, p) : LOG_Q64[i] - mulhi(rho64, p);
	/* rho^2 in 2^-126 units, exact; its top 64 bits R2 = rho^2 2^(z - 64) */
	U128 rho2 = mul64x64(rho, rho);
	int z = clz128(rho2);
	u64 R2 = shl(rho2, z).hi;
	/* v = rho^3 P = rho * (R2 P 2^-64) 2^(64 - z) in 2^-126 units, as 2^-63 * 2^-64 products */
	U128 v = shr(mul64x64(rho, mulhi(R2, p)), z - 1);
	/* |ln(1 + r)| = rho -+ rho^2/2 + v, in 2^-126 units */
	U128 l = shl(U128{0, rho}, 63);
	U128 half = shr(rho2, 1);
	l = neg ? add(add(l, half), v) : add(sub(l, half), v);
	return normalised(neg, 1, l);
}

} // namespace

namespace q7m {

Wide128 ln_wide128(u64 a)
{
	Unpacked64 p = unpack(a);
	/* m' = A / 2^53 in [0.75, 1.5), x = m' 2^e */
	bool high = p.m >= 0x18000000000000ull;
	u64 A = high ? p.m : p.m << 1;
	int e = high ? p.e + 1 : p.e;
	int k = int((i64(A) - (i64(1) << 53) + (i64(1) << 45)) >> 46); /* -32..64 */
	u32 inv = LOGF_INV[k + 32];
	/* r = A * (2^10 / c) - 2^63, in 2^-63 units, exact (A * inv < 2^64) */
	u64 prod = mul64x32(A, inv);
	Wide128 l1 = log1p_wide128(i64(prod - (u64(1) << 63)));
	if (e == 0 && k == 0)
		return l1;
	/* e ln2 + ln c + ln(1 + r) in 2^-116 units, two's complement */
	u32 ae = u32(e < 0 ? -e : e);
	U128 s = add(mul64x64(LN2_116.lo, ae), U128{mul64x32(LN2_116.hi, ae), 0});
	if (e < 0)
		s = neg(s);
	s = add(s, LOG_T116[k + 32]);
	if (l1.m.hi) { /* |ln(1 + r)| < 2^-7, l1.e <= -8 */
		U128 t = shr(l1.m, 11 - l1.e);
		s = l1.neg ? sub(s, t) : add(s, t);
	}
	bool negative = s.hi >> 63;
	return normalised(negative, 11, negative ? neg(s) : s);
}

} // namespace q7m

namespace {

/* ln x times `scale` when given: NaN for x < 0, -inf for +-0, +inf for +inf, x quieted for a
 * NaN. */
double log_scaled(double x, const Wide128 *scale)
{
	u64 u = bits(x), a = u & ~F64_SIGN;
	if (a > F64_INF)
		return quiet(u);
	if (a == 0)
		return f64(F64_SIGN | F64_INF);
	if (u != a)
		return f64(F64_QNAN);
	if (a == F64_INF)
		return x;
	Wide128 w = ln_wide128(a);
	if (scale && w.m.hi)
		w = mul(w, *scale);
	return round_f64(narrowed(w));
}

} // namespace

extern "C" double Q7_MATH(log)(double x)
{
	return log_scaled(x, nullptr);
}

extern "C" double Q7_MATH(log2)(double x)
{
	return log_scaled(x, &LOG2E_128);
}

extern "C" double Q7_MATH(log10)(double x)
{
	return log_scaled(x, &LOG10E_128);
}
