/* pow.cpp - pow (README.md in this directory, "Algorithms"): |x|^y = 2^(y log2|x|) with
 * log2|x| = ln|x| log2(e) carried on 128 bits (log.cpp), z = y log2|x| the top 128 bits of its
 * 181-bit product with y, so that z (below 2^11 in magnitude unless the result overflows or
 * vanishes) is right to far below 2^-64; then 2^z as exp.cpp computes it. The special cases are
 * those of C99 Annex F.9.4.4, as for powf. */
#include "fixed.h"
#include "internal.h"
#include "tables.h"

using namespace q7m;

namespace {

enum Parity { NOT_INTEGER, ODD, EVEN };

/* What kind of number a finite nonzero double is, by its absolute bits. */
Parity parity(u64 a)
{
	int e = int(a >> 52) - 1023;
	if (e < 0)
		return NOT_INTEGER;
	if (e > 52)
		return EVEN;
	u64 m = (a & 0xfffffffffffffull) | 0x10000000000000ull;
	if (m & ((u64(1) << (52 - e)) - 1))
		return NOT_INTEGER;
	return (m >> (52 - e)) & 1 ? ODD : EVEN;
}

} // namespace

extern "C" double Q7_MATH(pow)(double x, double y)
{
	u64 ux = bits(x), uy = bits(y), ax = ux & ~F64_SIGN, ay = uy & ~F64_SIGN;
	if (ay == 0 || ux == F64_ONE) /* x^0 = 1 and 1^y = 1, also for a NaN */
		return f64(F64_ONE);
	if (ax > F64_INF)
		return quiet(ux);
	if (ay > F64_INF)
		return quiet(uy);
	bool yneg = uy != ay;
	if (ay == F64_INF) {
		if (ax == F64_ONE) /* (-1)^+-inf = 1 */
			return f64(F64_ONE);
		return f64((ax > F64_ONE) != yneg ? F64_INF : 0);
	}
	Parity py = parity(ay);
	u64 sign = ux != ax && py == ODD ? F64_SIGN : 0;
	if (ax == 0)
		return f64(sign | (yneg ? F64_INF : 0));
	if (ax == F64_INF)
		return f64(sign | (yneg ? 0 : F64_INF));
	if (ux != ax && py == NOT_INTEGER)
		return f64(F64_QNAN);

	Wide128 l = ln_wide128(ax);
	if (l.m.hi == 0) /* |x| = 1 */
		return f64(sign | F64_ONE);
	l = mul(l, LOG2E_128);
	/* z = y log2|x|: y = (m << 11) 2^(e - 63) times l, the top 128 of 192 bits */
	Unpacked64 p = unpack(ay);
	u64 ym = p.m << 11;
	U128 zm = add(mul64x64(ym, l.m.hi), U128{0, mul64x64(ym, l.m.lo).hi});
	Wide128 z = normalised(l.neg != yneg, l.e + p.e + 1, zm);
	if (z.e >= 11) /* |z| >= 2^11: overflow or total underflow */
		return f64(sign | (z.neg ? 0 : F64_INF));
	int sh = 63 - z.e; /* z in 2^-64 units */
	U128 t = sh < 128 ? shr(z.m, sh) : U128{0, 0};
	if (z.neg)
		t = neg(t);
	Wide w = exp2_wide64(int(i64(t.hi)), t.lo);
	w.neg = sign != 0;
	return round_f64(w);
}
