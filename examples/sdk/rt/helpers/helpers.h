/* helpers.h - shared definitions of the compiler helper routines (README.md in this directory).
 *
 * Every routine is defined through Q7_HELPER(name): on the device it is the libgcc ABI name
 * GCC emits (__addsf3, __divdi3, ...); with Q7_HELPERS_HOST defined (the native test build) it
 * is q7_<name>, so the same C runs on the host beside the host's own libgcc. Q7_LIBC(name) does
 * the same for the C library names of mem.c (memcpy on the device, q7_memcpy on the host).
 *
 * Rules that keep the routines from ever calling themselves: none of them uses float or double
 * arithmetic (all work on bit patterns); 64-bit integer code in the soft-float files uses only
 * shifts, additions, comparisons and the inline helpers below (never '*', '/' or '%' on 64-bit
 * values); int64.c builds its 64-bit operations on 32-bit halves. */
#ifndef Q7_HELPERS_H
#define Q7_HELPERS_H

#ifdef Q7_HELPERS_HOST
#define Q7_HELPER(name) q7_##name
#define Q7_LIBC(name) q7_##name
#else
#define Q7_HELPER(name) __##name
#define Q7_LIBC(name) name
#endif

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

/* Bit-pattern views of float and double (no arithmetic on the floating types anywhere). */
typedef union {
	float f;
	u32 u;
} f32_bits;
typedef union {
	double f;
	u64 u;
} f64_bits;

static inline u32 f32_to_bits(float f)
{
	f32_bits b;
	b.f = f;
	return b.u;
}
static inline float f32_from_bits(u32 u)
{
	f32_bits b;
	b.u = u;
	return b.f;
}
static inline u64 f64_to_bits(double f)
{
	f64_bits b;
	b.f = f;
	return b.u;
}
static inline double f64_from_bits(u64 u)
{
	f64_bits b;
	b.u = u;
	return b.f;
}

/* The NaN every NaN-producing routine returns (README.md, "NaN policy"). */
#define Q7_F32_QNAN 0x7fc00000u
#define Q7_F64_QNAN 0x7ff8000000000000ull

/* Leading zeros of a nonzero word (NSAU on the device). */
static inline int clz32(u32 x)
{
	return __builtin_clz(x);
}

/* Leading zeros of a nonzero double word, without a 64-bit helper call. */
static inline int clz64(u64 x)
{
	u32 hi = (u32)(x >> 32);
	return hi ? clz32(hi) : 32 + clz32((u32)x);
}

/* x >> n with every shifted-out 1 ORed into bit 0 ("jamming"); any n >= 0. */
static inline u32 shr_jam32(u32 x, int n)
{
	if (n == 0)
		return x;
	if (n >= 32)
		return x != 0;
	return (x >> n) | ((x << (32 - n)) != 0);
}

static inline u64 shr_jam64(u64 x, int n)
{
	if (n == 0)
		return x;
	if (n >= 64)
		return x != 0;
	return (x >> n) | ((x << (64 - n)) != 0);
}

/* Single precision, working form shared by sf.c and df.c: a sign, a biased exponent x and a
 * significand sig whose leading 1 sits at bit 30, value = sig * 2^(x - 156). With x = biased
 * exponent - 1 the packed word is (x << 23) + (sig >> 7): the leading bit adds the missing 1
 * to the exponent field, and a rounding carry moves up into it by itself. f32_pack rounds
 * bits 6..0 away to nearest, ties to even; x may be out of range either way (overflow gives
 * infinity, x < 0 a subnormal or zero; for x = 0 sig may lie below bit 30). */
static inline u32 f32_pack(u32 sign, int x, u32 sig)
{
	if (x >= 0xfe)
		return sign | 0x7f800000u;
	if (x < 0) {
		sig = shr_jam32(sig, -x);
		x = 0;
	}
	u32 round = sig & 0x7f;
	u32 bits = ((u32)x << 23) + (sig >> 7);
	if (round > 0x40 || (round == 0x40 && (bits & 1)))
		bits++;
	return sign | bits;
}

/* The full 64-bit product of two words, from four 16 x 16 partial products (MULL). */
static inline u64 mul32x32(u32 a, u32 b)
{
	u32 al = a & 0xffff, ah = a >> 16, bl = b & 0xffff, bh = b >> 16;
	u32 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u32 mid = (ll >> 16) + (lh & 0xffff) + (hl & 0xffff);
	u32 lo = (ll & 0xffff) | (mid << 16);
	u32 hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16);
	return ((u64)hi << 32) | lo;
}

/* Divides the double word hi:lo by d (requires hi < d, so the quotient fits a word) and stores
 * the remainder; long division in two 16-bit digits on a normalised divisor, each digit
 * estimated with one 32-bit division (QUOU on the device) and corrected at most twice. */
static inline u32 udiv64by32(u32 hi, u32 lo, u32 d, u32 *rem)
{
	int s = clz32(d);
	d <<= s;
	if (s) {
		hi = (hi << s) | (lo >> (32 - s));
		lo <<= s;
	}
	u32 d1 = d >> 16, d0 = d & 0xffff;
	u32 n1 = lo >> 16, n0 = lo & 0xffff;

	u32 q1 = hi / d1, r = hi - q1 * d1;
	while (q1 > 0xffff || q1 * d0 > ((r << 16) | n1)) {
		q1--;
		r += d1;
		if (r > 0xffff)
			break;
	}
	u32 mid = ((hi << 16) | n1) - q1 * d;

	u32 q0 = mid / d1;
	r = mid - q0 * d1;
	while (q0 > 0xffff || q0 * d0 > ((r << 16) | n0)) {
		q0--;
		r += d1;
		if (r > 0xffff)
			break;
	}
	*rem = (((mid << 16) | n0) - q0 * d) >> s;
	return (q1 << 16) | q0;
}

/* Division by zero in every width: the QUOU instruction's IntegerDivideByZero exception, as
 * the 32-bit routines (DIV32 instructions) raise it. */
#ifdef Q7_HELPERS_HOST
#define Q7_DIVIDE_BY_ZERO() __builtin_trap()
#else
#define Q7_DIVIDE_BY_ZERO()                                                          \
	do {                                                                         \
		u32 q7_z = 0, q7_q;                                                  \
		__asm__ volatile("quou %0, %1, %1" : "=r"(q7_q) : "r"(q7_z));        \
		(void)q7_q;                                                          \
	} while (0)
#endif

/* Routines that others call by name (powi.c). */
float Q7_HELPER(mulsf3)(float a, float b);
float Q7_HELPER(divsf3)(float a, float b);
double Q7_HELPER(muldf3)(double a, double b);
double Q7_HELPER(divdf3)(double a, double b);

#endif
