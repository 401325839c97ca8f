/* expf.cpp - expf and exp2f (README.md in this directory, "Algorithms"): 2^t for t = k + f,
 * k an integer and f a 32-bit binary fraction, is 2^k * 2^(j/64) * 2^g, with 2^(j/64) from a
 * table and 2^g - 1 (0 <= g < 1/64) a degree-4 polynomial, evaluated in 32-bit fixed point. */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

namespace q7m {

Wide exp2_wide32(int k, u32 f)
{
	u32 j = f >> 26;
	u32 g = f & 0x3ffffffu; /* 2^-32 units, below 2^-6 */
	u32 p = EXP2F_POLY[3];
	p = EXP2F_POLY[2] + mulhi(g, p);
	p = EXP2F_POLY[1] + mulhi(g, p);
	p = EXP2F_POLY[0] + mulhi(g, p);
	u32 q = mulhi(g, p);          /* 2^g - 1, 2^-32 units */
	u32 t = EXP2F_TABLE[j];       /* 2^(j/64), 2^-31 units */
	u64 m = u64(t) + mulhi(t, q); /* 2^(j/64 + g), 2^-31 units, at most 2^32 */
	return normalised(false, k + 32, m);
}

} // namespace q7m

using namespace q7m;

extern "C" float Q7_MATH(expf)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	bool neg = u != a;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(neg ? 0 : F32_INF);
	if (a < 0x33000000u) /* |x| < 2^-25: e^x rounds to 1 */
		return f32(F32_ONE);
	if (a >= 0x42d00000u) /* |x| >= 104: beyond the overflow and total-underflow thresholds */
		return f32(neg ? 0 : F32_INF);
	/* t = x * log2(e) in 2^-32 units: the 24-bit significand times log2(e) * 2^62, an 86-bit
	 * product, shifted to the binary point (x = m * 2^(e - 23), -25 <= e <= 6). */
	Unpacked32 p = unpack(a);
	U128 prod = add(U128{0, mul32x32(p.m, u32(LOG2E_62))},
			shl(U128{0, mul32x32(p.m, u32(LOG2E_62 >> 32))}, 32));
	u64 t = shr(prod, 53 - p.e).lo;
	i64 st = neg ? -i64(t) : i64(t);
	return round_f32(exp2_wide32(int(st >> 32), u32(st)));
}

extern "C" float Q7_MATH(exp2f)(float x)
{
	u32 u = bits(x), a = u & ~F32_SIGN;
	bool neg = u != a;
	if (a >= F32_INF)
		return a > F32_INF ? quiet(u) : f32(neg ? 0 : F32_INF);
	if (a < 0x32800000u) /* |x| < 2^-26: 2^x rounds to 1 */
		return f32(F32_ONE);
	if (!neg && a >= 0x43000000u) /* x >= 128 overflows */
		return f32(F32_INF);
	if (neg && a >= 0x43170000u) /* x <= -151 underflows to zero */
		return f32(0);
	/* t = x in 2^-32 units: exact (x = m * 2^(e - 23), -26 <= e <= 7). */
	Unpacked32 p = unpack(a);
	u64 t = p.e >= -9 ? u64(p.m) << (p.e + 9) : u64(p.m >> (-9 - p.e));
	i64 st = neg ? -i64(t) : i64(t);
	return round_f32(exp2_wide32(int(st >> 32), u32(st)));
}
