/* math.cpp - the <math.h> functions that are bit manipulation of the IEEE encoding (no
 * soft-float arithmetic): fabs, copysign, trunc, floor, ceil, round, fmin, fmax. */
#include <stdint.h>
#include <math.h>

namespace {

/* One IEEE binary format: its unsigned word, mantissa bits and exponent bias. */
template <class F, class U, int MANT, int BIAS> struct Ieee {
	static U bits(F x)
	{
		U u;
		__builtin_memcpy(&u, &x, sizeof u);
		return u;
	}
	static F from(U u)
	{
		F x;
		__builtin_memcpy(&x, &u, sizeof x);
		return x;
	}
	static constexpr U SIGN = U(1) << (sizeof(U) * 8 - 1);
	static constexpr U ONE = U(BIAS) << MANT; /* 1.0 */
	static int exponent(U u) { return int((u & ~SIGN) >> MANT) - BIAS; }
	static bool is_nan(U u) { return (u & ~SIGN) > (U((2 * BIAS + 1)) << MANT); }

	static F trunc(F x)
	{
		U u = bits(x);
		int e = exponent(u);
		if (e >= MANT)
			return x;
		if (e < 0)
			return from(u & SIGN);
		return from(u & ~((U(1) << (MANT - e)) - 1));
	}
	/* Rounds toward -inf (`down`) or +inf. */
	static F directed(F x, bool down)
	{
		U u = bits(x);
		int e = exponent(u);
		bool neg = (u & SIGN) != 0;
		if (e >= MANT)
			return x;
		if (e < 0) {
			if ((u & ~SIGN) == 0)
				return x;
			if (neg == down)
				return from((u & SIGN) | ONE);
			return from(u & SIGN);
		}
		U mask = (U(1) << (MANT - e)) - 1;
		if ((u & mask) == 0)
			return x;
		if (neg == down)
			u += mask + 1;
		return from(u & ~mask);
	}
	static F round(F x)
	{
		U u = bits(x);
		int e = exponent(u);
		if (e >= MANT)
			return x;
		if (e < -1)
			return from(u & SIGN);
		if (e == -1)
			return from((u & SIGN) | ONE);
		U mask = (U(1) << (MANT - e)) - 1;
		u += U(1) << (MANT - 1 - e);
		return from(u & ~mask);
	}
	/* A total order key: sign-magnitude mapped to unsigned. */
	static U key(U u) { return (u & SIGN) ? ~u : (u | SIGN); }
	static F pick(F x, F y, bool min)
	{
		U a = bits(x), b = bits(y);
		if (is_nan(a))
			return y;
		if (is_nan(b))
			return x;
		return (key(a) < key(b)) == min ? x : y;
	}
};

typedef Ieee<double, uint64_t, 52, 1023> D;
typedef Ieee<float, uint32_t, 23, 127> S;

} // namespace

extern "C" {

double fabs(double x) { return D::from(D::bits(x) & ~D::SIGN); }
float fabsf(float x) { return S::from(S::bits(x) & ~S::SIGN); }
double copysign(double x, double y) { return D::from((D::bits(x) & ~D::SIGN) | (D::bits(y) & D::SIGN)); }
float copysignf(float x, float y) { return S::from((S::bits(x) & ~S::SIGN) | (S::bits(y) & S::SIGN)); }
double trunc(double x) { return D::trunc(x); }
float truncf(float x) { return S::trunc(x); }
double floor(double x) { return D::directed(x, true); }
float floorf(float x) { return S::directed(x, true); }
double ceil(double x) { return D::directed(x, false); }
float ceilf(float x) { return S::directed(x, false); }
double round(double x) { return D::round(x); }
float roundf(float x) { return S::round(x); }
double fmin(double x, double y) { return D::pick(x, y, true); }
float fminf(float x, float y) { return S::pick(x, y, true); }
double fmax(double x, double y) { return D::pick(x, y, false); }
float fmaxf(float x, float y) { return S::pick(x, y, false); }

} // extern "C"
