/* powi.c - x to an integer power (GCC's __builtin_powi): square-and-multiply from the exponent's
 * least significant bit, each product rounded; a negative exponent takes the reciprocal of the
 * positive power at the end. Every step is one of this directory's correctly rounded
 * operations (the same order of roundings as the host's __builtin_powi). */
#include "helpers.h"

float Q7_HELPER(powisf2)(float x, int n)
{
	u32 m = n < 0 ? -(u32)n : (u32)n;
	float r = (m & 1) ? x : f32_from_bits(0x3f800000u);
	while (m >>= 1) {
		x = Q7_HELPER(mulsf3)(x, x);
		if (m & 1)
			r = Q7_HELPER(mulsf3)(r, x);
	}
	if (n < 0)
		return Q7_HELPER(divsf3)(f32_from_bits(0x3f800000u), r);
	/* x itself when n = 1: quieted like every NaN result */
	return (f32_to_bits(r) & 0x7fffffffu) > 0x7f800000u ? f32_from_bits(Q7_F32_QNAN) : r;
}

double Q7_HELPER(powidf2)(double x, int n)
{
	u32 m = n < 0 ? -(u32)n : (u32)n;
	double r = (m & 1) ? x : f64_from_bits(0x3ff0000000000000ull);
	while (m >>= 1) {
		x = Q7_HELPER(muldf3)(x, x);
		if (m & 1)
			r = Q7_HELPER(muldf3)(r, x);
	}
	if (n < 0)
		return Q7_HELPER(divdf3)(f64_from_bits(0x3ff0000000000000ull), r);
	/* x itself when n = 1: quieted like every NaN result */
	return (f64_to_bits(r) & ~(1ull << 63)) > 0x7ff0000000000000ull ? f64_from_bits(Q7_F64_QNAN)
									  : r;
}
