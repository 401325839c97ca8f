/* fmod.cpp - fmodf and fmod, exact (README.md in this directory, "Algorithms"): x - n y with
 * n = trunc(x / y) is the remainder of the significands' long division, carried out a few bits
 * of the exponent difference at a time with word remainders; it is representable, so no
 * rounding happens. */
#include "fixed.h"

using namespace q7m;

extern "C" float Q7_MATH(fmodf)(float x, float y)
{
	u32 ux = bits(x), uy = bits(y), ax = ux & ~F32_SIGN, ay = uy & ~F32_SIGN;
	if (ax > F32_INF)
		return quiet(ux);
	if (ay > F32_INF)
		return quiet(uy);
	if (ax == F32_INF || ay == 0)
		return f32(F32_QNAN);
	if (ax < ay) /* |x| < |y|, y = +-inf and x = +-0 among them */
		return x;
	Unpacked32 px = unpack(ax), py = unpack(ay);
	/* (mx 2^d) mod my, 8 bits of d at a time: r < my < 2^24 */
	u32 r = px.m % py.m;
	int d = px.e - py.e;
	for (; d >= 8; d -= 8)
		r = (r << 8) % py.m;
	r = (r << d) % py.m;
	/* x - n y = r 2^(ey - 23), exact */
	return round_f32(normalised(ux != ax, py.e - 23 + 31, r));
}

extern "C" double Q7_MATH(fmod)(double x, double y)
{
	u64 ux = bits(x), uy = bits(y), ax = ux & ~F64_SIGN, ay = uy & ~F64_SIGN;
	if (ax > F64_INF)
		return quiet(ux);
	if (ay > F64_INF)
		return quiet(uy);
	if (ax == F64_INF || ay == 0)
		return f64(F64_QNAN);
	if (ax < ay)
		return x;
	Unpacked64 px = unpack(ax), py = unpack(ay);
	/* (mx 2^d) mod my, 11 bits of d at a time: r < my < 2^53 */
	u64 r = px.m % py.m;
	int d = px.e - py.e;
	for (; d >= 11; d -= 11)
		r = (r << 11) % py.m;
	r = (r << d) % py.m;
	return round_f64(normalised(ux != ax, py.e - 52 + 63, r));
}
