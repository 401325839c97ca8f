/* native.cpp - the SDK's math library (examples/sdk/rt/math, compiled for the host with
 * -DQ7_MATH_HOST, its functions named q7_<name>) measured against the host's libm evaluated
 * in a wider format: each float function against the double function of the same name on the
 * same argument (glibc's double functions are within one double ulp, 2^-29 float ulps), each
 * double function against the x87 long double function (64-bit significand, 2^-11 double
 * ulps). The error of a result is |result - reference| / ulp, the ulp of the reference's binade
 * in the result's format (subnormals: the smallest subnormal); an infinite result where the
 * reference rounds to infinity, a zero of the reference's sign and a NaN where the reference
 * is a NaN have error 0; any other infinite, zero or NaN disagreement is a class mismatch.
 *
 *   native list                         "<name> <kind>" per function, in table order
 *   native sample STEP N SEED [NAMES]   every function (or the NAMES, comma-separated): unary
 *                                       floats at every STEP-th bit pattern, other functions on
 *                                       N generated arguments, all with every edge case
 *   native exhaustive NAME PART PARTS   a unary float function on the 2^32 / PARTS bit patterns
 *                                       of slice PART
 *   native random NAME N SEED           one function on N generated arguments (no edges)
 *   native edges                        the exact results of examples/sdk/rt/math/README.md
 *                                       "Edge cases", one check per line, failures printed
 *   native edge-list float|double       the edge-case arguments (both signs), one per line
 *   native values NAME                  reads argument bit patterns (hex, one case per line,
 *                                       two for a binary function) from stdin and prints the
 *                                       result bit patterns (the device comparison)
 *
 * Measuring modes print one line per function:
 *   <name> <cases> max=<ulps> at=<arg>[,<arg>] le0.5=<n> le1=<n> le1.5=<n> le2=<n> gt2=<n> class=<n>
 * (the counts of cases by error; the buckets are disjoint) and the first class mismatches as
 * "CLASS <name> <args> got=<hex> ref=<value>". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#define F1(name) float q7_##name(float);
#define F2(name) float q7_##name(float, float);
#define D1(name) double q7_##name(double);
#define D2(name) double q7_##name(double, double);
#include "functions.h"
#undef F1
#undef F2
#undef D1
#undef D2
}

typedef uint32_t u32;
typedef uint64_t u64;

static u32 fbits(float x)
{
	u32 u;
	memcpy(&u, &x, 4);
	return u;
}
static float ffrom(u32 u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}
static u64 dbits(double x)
{
	u64 u;
	memcpy(&u, &x, 8);
	return u;
}
static double dfrom(u64 u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

/* ---- the function table (functions.h) with the references ---- */

enum Kind { KF1, KF2, KD1, KD2 };
static const char *kind_name[] = {"float", "float2", "double", "double2"};

struct Fn {
	const char *name;
	Kind kind;
	float (*f1)(float);
	float (*f2)(float, float);
	double (*d1)(double);
	double (*d2)(double, double);
};

static const Fn FNS[] = {
#define F1(name) {#name, KF1, q7_##name, 0, 0, 0},
#define F2(name) {#name, KF2, 0, q7_##name, 0, 0},
#define D1(name) {#name, KD1, 0, 0, q7_##name, 0},
#define D2(name) {#name, KD2, 0, 0, 0, q7_##name},
#include "functions.h"
#undef F1
#undef F2
#undef D1
#undef D2
};
static const int NFNS = sizeof FNS / sizeof FNS[0];

static const Fn *find(const char *name)
{
	for (int i = 0; i < NFNS; i++)
		if (!strcmp(FNS[i].name, name))
			return &FNS[i];
	fprintf(stderr, "no function %s\n", name);
	exit(2);
}

/* The reference of a function: for a float function (name ending in f) the double function
 * of the name without the f, for a double function the long double one (name + l). */
struct Ref {
	double (*d1)(double);
	double (*d2)(double, double);
	long double (*l1)(long double);
	long double (*l2)(long double, long double);
};

static Ref reference(const char *name)
{
	char base[16];
	size_t len = strlen(name);
	bool flt = name[len - 1] == 'f';
	snprintf(base, sizeof base, "%.*s", int(flt ? len - 1 : len), name);
	Ref r = {};
#define R1(fn)                                                                               \
	if (!strcmp(base, #fn)) {                                                            \
		r.d1 = fn;                                                                   \
		r.l1 = fn##l;                                                                \
	}
#define R2(fn)                                                                               \
	if (!strcmp(base, #fn)) {                                                            \
		r.d2 = fn;                                                                   \
		r.l2 = fn##l;                                                                \
	}
	R1(exp) R1(exp2) R1(log) R1(log2) R1(log10) R1(sin) R1(cos) R1(tan) R1(sqrt)
	R1(sinh) R1(cosh) R1(tanh) R1(asin) R1(acos) R1(atan)
	R2(pow) R2(fmod) R2(atan2)
#undef R1
#undef R2
	if (!r.d1 && !r.d2) {
		fprintf(stderr, "no reference for %s\n", name);
		exit(2);
	}
	return r;
}

/* ---- errors ---- */

/* The error of a float result against its double reference, in float ulps (the ulp of the
 * reference's binade; 2^-149 below 2^-126, 2^104 from 2^127 on, infinity counting as 2^128);
 * -1 for a class mismatch: a NaN against a number or the other way round, a zero of the
 * other sign against an exact zero, an infinity where the reference does not round to it. */
static double error_f32(float got, double ref)
{
	if (ref != ref)
		return got != got ? 0 : -1;
	if (got != got)
		return -1;
	float rounded = float(ref);
	if (isinf(got) && got == rounded)
		return 0;
	if (ref == 0)
		return got == 0 && signbit(got) == signbit(ref) ? 0 : -1;
	if (got == 0 && signbit(got) != signbit(ref))
		return -1;
	double g = isinf(got) ? copysign(ldexp(1.0, 128), got) : double(got);
	double r = isinf(ref) ? copysign(ldexp(1.0, 128), ref) : ref;
	int e = int((dbits(r) >> 52) & 0x7ff) - 1023; /* |r| in [2^e, 2^(e+1)) */
	if (e < -126)
		e = -126;
	if (e > 127)
		e = 127;
	return fabs(g - r) * ldexp(1.0, 23 - e);
}

/* The error of a double result against its long double reference, in double ulps, as
 * error_f32 (2^-1074 below 2^-1022, infinity counting as 2^1024). */
static double error_f64(double got, long double ref)
{
	if (ref != ref)
		return got != got ? 0 : -1;
	if (got != got)
		return -1;
	double rounded = double(ref);
	if (isinf(got) && got == rounded)
		return 0;
	if (ref == 0)
		return got == 0 && signbit(got) == signbit(ref) ? 0 : -1;
	if (got == 0 && signbit(got) != signbit(ref))
		return -1;
	long double top = ldexpl(1.0L, 1024);
	long double g = isinf(got) ? copysignl(top, got) : got;
	long double r = isinfl(ref) ? copysignl(top, ref) : ref;
	int e;
	frexpl(fabsl(r), &e);
	e -= 1;
	if (e < -1022)
		e = -1022;
	if (e > 1023)
		e = 1023;
	return double(fabsl(g - r) * ldexpl(1.0L, 52 - e));
}

/* ---- measuring ---- */

struct Stats {
	u64 cases, buckets[5], klass;
	double max;
	u64 at_x, at_y;
	int shown;
};

static void record(Stats *s, const Fn *f, double err, u64 x, u64 y, u64 got, long double ref)
{
	s->cases++;
	if (err < 0) {
		s->klass++;
		if (s->shown++ < 5) {
			if (f->kind == KF2 || f->kind == KD2)
				printf("CLASS %s 0x%llx,0x%llx got=0x%llx ref=%.21Lg\n", f->name,
				       (unsigned long long)x, (unsigned long long)y, (unsigned long long)got, ref);
			else
				printf("CLASS %s 0x%llx got=0x%llx ref=%.21Lg\n", f->name, (unsigned long long)x,
				       (unsigned long long)got, ref);
		}
		return;
	}
	int b = err <= 0.5 ? 0 : err <= 1 ? 1 : err <= 1.5 ? 2 : err <= 2 ? 3 : 4;
	s->buckets[b]++;
	if (err > s->max || s->cases == 1) {
		s->max = err;
		s->at_x = x;
		s->at_y = y;
	}
}

/* One case: x (and y) as bit patterns of the function's format. */
static void measure(Stats *s, const Fn *f, const Ref &r, u64 x, u64 y)
{
	switch (f->kind) {
	case KF1: {
		float fx = ffrom(u32(x)), got = f->f1(fx);
		double ref = r.d1(fx);
		record(s, f, error_f32(got, ref), x, y, fbits(got), ref);
		break;
	}
	case KF2: {
		float fx = ffrom(u32(x)), fy = ffrom(u32(y)), got = f->f2(fx, fy);
		double ref = r.d2(fx, fy);
		record(s, f, error_f32(got, ref), x, y, fbits(got), ref);
		break;
	}
	case KD1: {
		double dx = dfrom(x), got = f->d1(dx);
		long double ref = r.l1(dx);
		record(s, f, error_f64(got, ref), x, y, dbits(got), ref);
		break;
	}
	case KD2: {
		double dx = dfrom(x), dy = dfrom(y), got = f->d2(dx, dy);
		long double ref = r.l2(dx, dy);
		record(s, f, error_f64(got, ref), x, y, dbits(got), ref);
		break;
	}
	}
}

static void print(const Fn *f, const Stats *s)
{
	bool two = f->kind == KF2 || f->kind == KD2;
	printf("%s %llu max=%.4f at=0x%llx", f->name, (unsigned long long)s->cases, s->max,
	       (unsigned long long)s->at_x);
	if (two)
		printf(",0x%llx", (unsigned long long)s->at_y);
	printf(" le0.5=%llu le1=%llu le1.5=%llu le2=%llu gt2=%llu class=%llu\n",
	       (unsigned long long)s->buckets[0], (unsigned long long)s->buckets[1],
	       (unsigned long long)s->buckets[2], (unsigned long long)s->buckets[3],
	       (unsigned long long)s->buckets[4], (unsigned long long)s->klass);
	fflush(stdout);
}

/* ---- arguments ---- */

/* SplitMix64. */
static u64 rng_state;
static u64 next64()
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
/* Uniform in [lo, hi). */
static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * ldexp(double(next64() >> 11), -53);
}

/* Edge cases of a format: zeros, subnormals, normals at the ends, around 1 and 2, infinities,
 * quiet and signalling NaNs with payloads, both signs. */
static const u32 EDGE32[] = {
	0x00000000, 0x00000001, 0x00000002, 0x007fffff, 0x00800000, 0x00800001, 0x33ffffff,
	0x34000000, 0x38000000, 0x3effffff, 0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001,
	0x3fb504f3, 0x3fc90fdb, 0x3fffffff, 0x40000000, 0x40490fdb, 0x40c90fdb, 0x41200000,
	0x42b17217, 0x42b17218, 0x42cff1b5, 0x42d00000, 0x43000000, 0x43160000, 0x43170000,
	0x4b000000, 0x4b800000, 0x4f000000, 0x5f000000, 0x7effffff, 0x7f7fffff, 0x7f800000,
	0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fc00001, 0x7fffffff,
};
static const u64 EDGE64[] = {
	0x0000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull,
	0x3c90000000000000ull, 0x3ca0000000000000ull, 0x3fe0000000000000ull, 0x3fefffffffffffffull,
	0x3ff0000000000000ull, 0x3ff0000000000001ull, 0x3ff6a09e667f3bcdull, 0x3ff921fb54442d18ull,
	0x4000000000000000ull, 0x400921fb54442d18ull, 0x4024000000000000ull, 0x40862e42fefa39efull,
	0x40862e42fefa39f0ull, 0x408633ce8fb9f87eull, 0x4087480000000000ull, 0x4090000000000000ull,
	0x4330000000000000ull, 0x4340000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
	0x7ff0000000000001ull, 0x7ff7ffffffffffffull, 0x7ff8000000000000ull, 0x7ff8000000000001ull,
	0x7506ac5b262ca1ffull, /* x 2/pi nearest an integer of all doubles (2^-61.54 from it) */
};
static const int NEDGE32 = sizeof EDGE32 / sizeof EDGE32[0];
static const int NEDGE64 = sizeof EDGE64 / sizeof EDGE64[0];

/* Every edge case with both signs, as bit patterns of the format. */
static int edges(bool dbl, u64 *out)
{
	int n = 0;
	for (int i = 0; i < (dbl ? NEDGE64 : NEDGE32); i++) {
		u64 e = dbl ? EDGE64[i] : EDGE32[i];
		out[n++] = e;
		out[n++] = e | (dbl ? 0x8000000000000000ull : 0x80000000ull);
	}
	return n;
}

/* A generated argument of function f: random bit patterns, and values in the range where the
 * function's result is neither overflowing nor trivially 0, 1 or the argument. */
static void generate(const Fn *f, u64 *x, u64 *y)
{
	bool dbl = f->kind == KD1 || f->kind == KD2;
	const char *n = f->name;
	u64 r = next64();
	int pick = int(r & 7);
	double vx, vy = 0;
	if (pick == 0) { /* any bit pattern */
		*x = dbl ? next64() : next64() >> 32;
		*y = dbl ? next64() : next64() >> 32;
		return;
	}
	if (!strncmp(n, "pow", 3)) {
		/* |y log2 x| below the format's exponent range; x near 1 now and then */
		double lim = dbl ? 1100 : 160;
		vx = pick == 1 ? 1 + uniform(-1, 1) * ldexp(1, -int(next64() % 30))
			       : exp2(uniform(dbl ? -1074 : -149, dbl ? 1024 : 128));
		if (pick == 2)
			vx = -vx;
		double l = fabs(log2(fabs(vx)));
		vy = uniform(-lim, lim) / (l > 1e-300 ? l : 1);
		if (pick == 2 || pick == 3)
			vy = nearbyint(vy);
		if (!dbl && (fabsf(float(vy)) > 3.4e38f))
			vy = 0.5;
	} else if (!strncmp(n, "fmod", 4) || !strncmp(n, "atan2", 5)) {
		int range = dbl ? 1070 : 140;
		vx = ldexp(uniform(-1, 1), int(next64() % (2 * range)) - range);
		vy = ldexp(uniform(-1, 1), int(next64() % (2 * range)) - range);
		if (pick == 1) /* nearby exponents */
			vy = vx * uniform(-4, 4);
	} else if (!strncmp(n, "exp", 3)) {
		vx = !strncmp(n, "exp2", 4) ? uniform(dbl ? -1080 : -155, dbl ? 1030 : 130)
					    : uniform(dbl ? -750 : -105, dbl ? 712 : 90);
		if (pick == 1)
			vx = ldexp(uniform(-1, 1), -int(next64() % 60));
	} else if (!strncmp(n, "log", 3) || !strncmp(n, "sqrt", 4)) {
		vx = pick == 1 ? 1 + uniform(-1, 1) * ldexp(1, -int(next64() % 60))
			       : exp2(uniform(dbl ? -1074 : -149, dbl ? 1024 : 128));
	} else if (!strncmp(n, "sinh", 4) || !strncmp(n, "cosh", 4) || !strncmp(n, "tanh", 4)) {
		vx = pick == 1 ? ldexp(uniform(-1, 1), -int(next64() % 40)) : uniform(dbl ? -720 : -95, dbl ? 720 : 95);
	} else if (!strncmp(n, "asin", 4) || !strncmp(n, "acos", 4)) {
		vx = pick == 1 ? copysign(1 - ldexp(uniform(0, 1), -int(next64() % 60)), uniform(-1, 1))
			       : ldexp(uniform(-1, 1), -int(next64() % 40));
	} else if (!strncmp(n, "sin", 3) || !strncmp(n, "cos", 3) || !strncmp(n, "tan", 3)) {
		vx = pick == 1 ? uniform(-10, 10) : pick == 2 ? uniform(-1e6, 1e6)
				: ldexp(uniform(-1, 1), int(next64() % (dbl ? 2100 : 280)) - (dbl ? 1075 : 150));
	} else {
		vx = uniform(-1, 1) * exp2(uniform(-30, 30));
	}
	if (dbl) {
		*x = dbits(vx);
		*y = dbits(vy);
	} else {
		*x = fbits(float(vx));
		*y = fbits(float(vy));
	}
}

static bool listed(const char *names, const char *name)
{
	if (!names)
		return true;
	size_t len = strlen(name);
	for (const char *p = names; *p;) {
		const char *end = strchr(p, ',');
		size_t l = end ? size_t(end - p) : strlen(p);
		if (l == len && !strncmp(p, name, len))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

static void sample(u64 step, u64 n, u64 seed, const char *names)
{
	for (int i = 0; i < NFNS; i++) {
		const Fn *f = &FNS[i];
		if (!listed(names, f->name))
			continue;
		Stats s = {};
		Ref r = reference(f->name);
		bool dbl = f->kind == KD1 || f->kind == KD2;
		u64 e[2 * 64];
		int ne = edges(dbl, e);
		bool two = f->kind == KF2 || f->kind == KD2;
		for (int a = 0; a < ne; a++)
			for (int b = 0; b < (two ? ne : 1); b++)
				measure(&s, f, r, e[a], e[b]);
		if (f->kind == KF1) {
			for (u64 u = 0; u < (1ull << 32); u += step)
				measure(&s, f, r, u, 0);
		} else {
			rng_state = seed ^ (u64(i) << 32);
			for (u64 k = 0; k < n; k++) {
				u64 x, y;
				generate(f, &x, &y);
				measure(&s, f, r, x, y);
			}
		}
		print(f, &s);
	}
}

/* ---- exact edge results (examples/sdk/rt/math/README.md "Edge cases") ---- */

static int checks, failed;
static void expect(const char *what, u64 got, u64 want)
{
	checks++;
	if (got != want) {
		failed++;
		printf("EDGE %s: got 0x%llx, want 0x%llx\n", what, (unsigned long long)got,
		       (unsigned long long)want);
	}
}
#define EF(expr, want) expect(#expr, fbits(expr), want)
#define ED(expr, want) expect(#expr, dbits(expr), want)

static void edge_checks()
{
	const float inf = INFINITY, nan_in = ffrom(0xffa00001u); /* a signalling NaN, sign set */
	const u32 QN = 0x7fc00000u, NANQ = 0xffe00001u;        /* default NaN; nan_in quieted */
	const u32 PINF = 0x7f800000u, NINF = 0xff800000u, ONE = 0x3f800000u, NZ = 0x80000000u;
	/* exp family */
	EF(q7_expf(0.0f), ONE);
	EF(q7_expf(-0.0f), ONE);
	EF(q7_expf(inf), PINF);
	EF(q7_expf(-inf), 0);
	EF(q7_expf(nan_in), NANQ);
	EF(q7_expf(88.8f), PINF);
	EF(q7_expf(-104.0f), 0);
	EF(q7_exp2f(0.0f), ONE);
	EF(q7_exp2f(10.0f), 0x44800000u);
	EF(q7_exp2f(-149.0f), 1u);
	EF(q7_exp2f(-150.0f), 0u);
	EF(q7_exp2f(128.0f), PINF);
	EF(q7_exp2f(-inf), 0);
	/* log family */
	EF(q7_logf(1.0f), 0);
	EF(q7_logf(0.0f), NINF);
	EF(q7_logf(-0.0f), NINF);
	EF(q7_logf(-1.0f), QN);
	EF(q7_logf(-inf), QN);
	EF(q7_logf(inf), PINF);
	EF(q7_logf(nan_in), NANQ);
	EF(q7_log2f(8.0f), 0x40400000u);
	EF(q7_log2f(ffrom(1)), 0xc3150000u); /* -149 */
	EF(q7_log2f(1.0f), 0);
	EF(q7_log10f(1000.0f), 0x40400000u);
	EF(q7_log10f(1e10f), 0x41200000u);
	EF(q7_log10f(1.0f), 0);
	/* pow (C99 Annex F.9.4.4) */
	EF(q7_powf(nan_in, 0.0f), ONE);
	EF(q7_powf(nan_in, -0.0f), ONE);
	EF(q7_powf(1.0f, nan_in), ONE);
	EF(q7_powf(1.0f, inf), ONE);
	EF(q7_powf(-1.0f, inf), ONE);
	EF(q7_powf(-1.0f, -inf), ONE);
	EF(q7_powf(nan_in, 1.0f), NANQ);
	EF(q7_powf(2.0f, nan_in), NANQ);
	EF(q7_powf(0.0f, -3.0f), PINF);
	EF(q7_powf(-0.0f, -3.0f), NINF);
	EF(q7_powf(-0.0f, -2.0f), PINF);
	EF(q7_powf(-0.0f, -0.5f), PINF);
	EF(q7_powf(-0.0f, -inf), PINF);
	EF(q7_powf(-0.0f, 3.0f), NZ);
	EF(q7_powf(-0.0f, 2.0f), 0);
	EF(q7_powf(-0.0f, 0.5f), 0);
	EF(q7_powf(0.5f, -inf), PINF);
	EF(q7_powf(-2.0f, -inf), 0);
	EF(q7_powf(0.5f, inf), 0);
	EF(q7_powf(-2.0f, inf), PINF);
	EF(q7_powf(-inf, -3.0f), NZ);
	EF(q7_powf(-inf, -2.0f), 0);
	EF(q7_powf(-inf, 3.0f), NINF);
	EF(q7_powf(-inf, 2.5f), PINF);
	EF(q7_powf(inf, -1.0f), 0);
	EF(q7_powf(inf, 0.5f), PINF);
	EF(q7_powf(-2.0f, 0.5f), QN);
	EF(q7_powf(-2.0f, 3.0f), 0xc1000000u);
	EF(q7_powf(-2.0f, -2.0f), 0x3e800000u);
	EF(q7_powf(2.0f, 0.5f), 0x3fb504f3u);
	EF(q7_powf(10.0f, 10.0f), 0x501502f9u);
	EF(q7_powf(2.0f, -149.0f), 1u);
	EF(q7_powf(2.0f, 128.0f), PINF);
	EF(q7_powf(-2.0f, 127.0f), 0xff000000u);
	EF(q7_powf(-2.0f, 129.0f), NINF);
	/* trigonometric */
	EF(q7_sinf(-0.0f), NZ);
	EF(q7_sinf(inf), QN);
	EF(q7_sinf(nan_in), NANQ);
	EF(q7_cosf(-0.0f), ONE);
	EF(q7_cosf(-inf), QN);
	EF(q7_tanf(-0.0f), NZ);
	EF(q7_tanf(inf), QN);
	EF(q7_sinf(ffrom(1)), 1u);
	EF(q7_tanf(ffrom(0x80000001u)), 0x80000001u);
	/* sqrt, fmod */
	EF(q7_sqrtf(-0.0f), NZ);
	EF(q7_sqrtf(-1.0f), QN);
	EF(q7_sqrtf(inf), PINF);
	EF(q7_sqrtf(-inf), QN);
	EF(q7_sqrtf(nan_in), NANQ);
	EF(q7_sqrtf(4.0f), 0x40000000u);
	EF(q7_sqrtf(ffrom(1)), 0x1a3504f3u);
	EF(q7_fmodf(5.5f, 2.0f), 0x3fc00000u);
	EF(q7_fmodf(-5.5f, 2.0f), 0xbfc00000u);
	EF(q7_fmodf(-4.0f, 2.0f), NZ);
	EF(q7_fmodf(0.0f, 0.0f), QN);
	EF(q7_fmodf(1.0f, 0.0f), QN);
	EF(q7_fmodf(inf, 1.0f), QN);
	EF(q7_fmodf(1.5f, inf), 0x3fc00000u);
	EF(q7_fmodf(-0.0f, 1.0f), NZ);
	EF(q7_fmodf(nan_in, 1.0f), NANQ);
	EF(q7_fmodf(1.0f, nan_in), NANQ);
	EF(q7_fmodf(ffrom(0x7f7fffff), ffrom(1)), 0);
	/* hyperbolic */
	EF(q7_sinhf(-0.0f), NZ);
	EF(q7_sinhf(-inf), NINF);
	EF(q7_sinhf(nan_in), NANQ);
	EF(q7_sinhf(89.5f), PINF);
	EF(q7_sinhf(ffrom(0x80000001u)), 0x80000001u);
	EF(q7_coshf(-0.0f), ONE);
	EF(q7_coshf(-inf), PINF);
	EF(q7_coshf(-89.5f), PINF);
	EF(q7_tanhf(-0.0f), NZ);
	EF(q7_tanhf(inf), ONE);
	EF(q7_tanhf(-inf), 0xbf800000u);
	EF(q7_tanhf(20.0f), ONE);
	EF(q7_tanhf(ffrom(1)), 1u);
	EF(q7_tanhf(nan_in), NANQ);
	/* inverse trigonometric (C99 Annex F.9.1) */
	const u32 PIO2F = 0x3fc90fdbu, PIF = 0x40490fdbu, PIO4F = 0x3f490fdbu, PI3O4F = 0x4016cbe4u;
	EF(q7_atanf(-0.0f), NZ);
	EF(q7_atanf(inf), PIO2F);
	EF(q7_atanf(-inf), PIO2F | NZ);
	EF(q7_atanf(1.0f), PIO4F);
	EF(q7_atanf(nan_in), NANQ);
	EF(q7_atan2f(0.0f, -0.0f), PIF);
	EF(q7_atan2f(-0.0f, -0.0f), PIF | NZ);
	EF(q7_atan2f(0.0f, 0.0f), 0);
	EF(q7_atan2f(-0.0f, 0.0f), NZ);
	EF(q7_atan2f(0.0f, -1.0f), PIF);
	EF(q7_atan2f(-0.0f, 1.0f), NZ);
	EF(q7_atan2f(-1.0f, 0.0f), PIO2F | NZ);
	EF(q7_atan2f(1.0f, -0.0f), PIO2F);
	EF(q7_atan2f(1.0f, -inf), PIF);
	EF(q7_atan2f(-1.0f, inf), NZ);
	EF(q7_atan2f(-inf, 1.0f), PIO2F | NZ);
	EF(q7_atan2f(inf, -inf), PI3O4F);
	EF(q7_atan2f(-inf, inf), PIO4F | NZ);
	EF(q7_atan2f(1.0f, 1.0f), PIO4F);
	EF(q7_atan2f(nan_in, 1.0f), NANQ);
	EF(q7_atan2f(1.0f, nan_in), NANQ);
	EF(q7_asinf(-0.0f), NZ);
	EF(q7_asinf(1.0f), PIO2F);
	EF(q7_asinf(-1.0f), PIO2F | NZ);
	EF(q7_asinf(1.5f), QN);
	EF(q7_asinf(-inf), QN);
	EF(q7_asinf(ffrom(1)), 1u);
	EF(q7_acosf(1.0f), 0);
	EF(q7_acosf(-1.0f), PIF);
	EF(q7_acosf(0.0f), PIO2F);
	EF(q7_acosf(-0.0f), PIO2F);
	EF(q7_acosf(1.5f), QN);
	EF(q7_acosf(nan_in), NANQ);
	/* double */
	const double dinf = INFINITY, dnan_in = dfrom(0xfff4000000000001ull);
	const u64 DQN = 0x7ff8000000000000ull, DPINF = 0x7ff0000000000000ull;
	const u64 DNINF = 0xfff0000000000000ull, DONE = 0x3ff0000000000000ull;
	const u64 DNZ = 0x8000000000000000ull, DNANQ = 0xfffc000000000001ull;
	ED(q7_exp(0.0), DONE);
	ED(q7_exp(-0.0), DONE);
	ED(q7_exp(dinf), DPINF);
	ED(q7_exp(-dinf), 0);
	ED(q7_exp(dnan_in), DNANQ);
	ED(q7_exp(710.0), DPINF);
	ED(q7_exp(-746.0), 0);
	ED(q7_exp2(0.0), DONE);
	ED(q7_exp2(10.0), 0x4090000000000000ull);
	ED(q7_exp2(-1074.0), 1);
	ED(q7_exp2(-1075.0), 0);
	ED(q7_exp2(1024.0), DPINF);
	ED(q7_exp2(-dinf), 0);
	ED(q7_log(1.0), 0);
	ED(q7_log(0.0), DNINF);
	ED(q7_log(-0.0), DNINF);
	ED(q7_log(-1.0), DQN);
	ED(q7_log(-dinf), DQN);
	ED(q7_log(dinf), DPINF);
	ED(q7_log(dnan_in), DNANQ);
	ED(q7_log2(8.0), 0x4008000000000000ull);
	ED(q7_log2(dfrom(1)), 0xc090c80000000000ull); /* -1074 */
	ED(q7_log10(1000.0), 0x4008000000000000ull);
	ED(q7_log10(1e22), 0x4036000000000000ull);
	ED(q7_log10(1.0), 0);
	ED(q7_pow(dnan_in, 0.0), DONE);
	ED(q7_pow(1.0, dnan_in), DONE);
	ED(q7_pow(-1.0, -dinf), DONE);
	ED(q7_pow(dnan_in, 1.0), DNANQ);
	ED(q7_pow(2.0, dnan_in), DNANQ);
	ED(q7_pow(-0.0, -3.0), DNINF);
	ED(q7_pow(-0.0, -2.0), DPINF);
	ED(q7_pow(-0.0, -dinf), DPINF);
	ED(q7_pow(-0.0, 3.0), DNZ);
	ED(q7_pow(-0.0, 0.5), 0);
	ED(q7_pow(0.5, -dinf), DPINF);
	ED(q7_pow(-2.0, -dinf), 0);
	ED(q7_pow(0.5, dinf), 0);
	ED(q7_pow(-2.0, dinf), DPINF);
	ED(q7_pow(-dinf, -3.0), DNZ);
	ED(q7_pow(-dinf, -2.0), 0);
	ED(q7_pow(-dinf, 3.0), DNINF);
	ED(q7_pow(-dinf, 2.5), DPINF);
	ED(q7_pow(dinf, -1.0), 0);
	ED(q7_pow(-2.0, 0.5), DQN);
	ED(q7_pow(-2.0, 3.0), 0xc020000000000000ull);
	ED(q7_pow(2.0, 0.5), 0x3ff6a09e667f3bcdull);
	ED(q7_pow(10.0, 22.0), 0x4480f0cf064dd592ull); /* 1e22, exact */
	ED(q7_pow(2.0, -1074.0), 1);
	ED(q7_pow(2.0, 1024.0), DPINF);
	ED(q7_pow(-2.0, 1023.0), 0xffe0000000000000ull);
	ED(q7_pow(dfrom(0x3ff0000000000001ull), dfrom(0x4340000000000000ull)), 0x401d8e64b8d4ddacull); /* (1 + 2^-52)^(2^53), near e^2 */
	ED(q7_sin(-0.0), DNZ);
	ED(q7_sin(dinf), DQN);
	ED(q7_sin(dnan_in), DNANQ);
	ED(q7_cos(-0.0), DONE);
	ED(q7_cos(-dinf), DQN);
	ED(q7_tan(-0.0), DNZ);
	ED(q7_sin(dfrom(1)), 1);
	ED(q7_tan(dfrom(0x8000000000000001ull)), 0x8000000000000001ull);
	ED(q7_sinh(-0.0), DNZ);
	ED(q7_sinh(-dinf), DNINF);
	ED(q7_sinh(711.0), DPINF);
	ED(q7_cosh(-0.0), DONE);
	ED(q7_cosh(-dinf), DPINF);
	ED(q7_tanh(-0.0), DNZ);
	ED(q7_tanh(-dinf), 0xbff0000000000000ull);
	ED(q7_tanh(dfrom(1)), 1);
	const u64 PIO2D = 0x3ff921fb54442d18ull, PID = 0x400921fb54442d18ull;
	ED(q7_atan(dinf), PIO2D);
	ED(q7_atan(-0.0), DNZ);
	ED(q7_atan(1.0), 0x3fe921fb54442d18ull);
	ED(q7_atan2(0.0, -0.0), PID);
	ED(q7_atan2(-0.0, 0.0), DNZ);
	ED(q7_atan2(-1.0, -0.0), PIO2D | DNZ);
	ED(q7_atan2(dinf, -dinf), 0x4002d97c7f3321d2ull);
	ED(q7_atan2(-dinf, dinf), 0xbfe921fb54442d18ull);
	ED(q7_atan2(1.0, -dinf), PID);
	ED(q7_atan2(dnan_in, 1.0), DNANQ);
	ED(q7_asin(-1.0), PIO2D | DNZ);
	ED(q7_asin(2.0), DQN);
	ED(q7_asin(dfrom(1)), 1);
	ED(q7_acos(1.0), 0);
	ED(q7_acos(-1.0), PID);
	ED(q7_acos(-0.0), PIO2D);
	ED(q7_sqrt(-0.0), 0x8000000000000000ull);
	ED(q7_sqrt(-1.0), DQN);
	ED(q7_sqrt(dinf), DPINF);
	ED(q7_sqrt(2.0), 0x3ff6a09e667f3bcdull);
	ED(q7_sqrt(dfrom(1)), 0x1e60000000000000ull);
	ED(q7_fmod(5.5, 2.0), 0x3ff8000000000000ull);
	ED(q7_fmod(-0.0, 1.0), 0x8000000000000000ull);
	ED(q7_fmod(1.0, 0.0), DQN);
	ED(q7_fmod(dfrom(0x7fefffffffffffffull), dfrom(1)), 0);
	printf("%d checks, %d failed\n", checks, failed);
}

/* ---- device comparison ---- */

static void values(const Fn *f)
{
	char line[256];
	while (fgets(line, sizeof line, stdin)) {
		char *end;
		u64 x = strtoull(line, &end, 16), y = strtoull(end, 0, 16);
		switch (f->kind) {
		case KF1:
			printf("%08x\n", fbits(f->f1(ffrom(u32(x)))));
			break;
		case KF2:
			printf("%08x\n", fbits(f->f2(ffrom(u32(x)), ffrom(u32(y)))));
			break;
		case KD1:
			printf("%016llx\n", (unsigned long long)dbits(f->d1(dfrom(x))));
			break;
		case KD2:
			printf("%016llx\n", (unsigned long long)dbits(f->d2(dfrom(x), dfrom(y))));
			break;
		}
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "list")) {
		for (int i = 0; i < NFNS; i++)
			printf("%s %s\n", FNS[i].name, kind_name[FNS[i].kind]);
		return 0;
	}
	if (!strcmp(mode, "sample") && argc >= 5) {
		sample(strtoull(argv[2], 0, 0), strtoull(argv[3], 0, 0), strtoull(argv[4], 0, 0),
		       argc > 5 ? argv[5] : 0);
		return 0;
	}
	if (!strcmp(mode, "exhaustive") && argc == 5) {
		const Fn *f = find(argv[2]);
		u64 part = strtoull(argv[3], 0, 0), parts = strtoull(argv[4], 0, 0);
		u64 lo = (1ull << 32) / parts * part, hi = part + 1 == parts ? 1ull << 32 : (1ull << 32) / parts * (part + 1);
		Stats s = {};
		Ref r = reference(f->name);
		for (u64 u = lo; u < hi; u++)
			measure(&s, f, r, u, 0);
		print(f, &s);
		return 0;
	}
	if (!strcmp(mode, "random") && argc == 5) {
		const Fn *f = find(argv[2]);
		rng_state = strtoull(argv[4], 0, 0);
		u64 n = strtoull(argv[3], 0, 0);
		Stats s = {};
		Ref r = reference(f->name);
		for (u64 k = 0; k < n; k++) {
			u64 x, y;
			generate(f, &x, &y);
			measure(&s, f, r, x, y);
		}
		print(f, &s);
		return 0;
	}
	if (!strcmp(mode, "edges")) {
		edge_checks();
		return failed != 0;
	}
	if (!strcmp(mode, "edge-list") && argc == 3) {
		u64 e[2 * 64];
		bool dbl = !strcmp(argv[2], "double");
		int n = edges(dbl, e);
		for (int i = 0; i < n; i++)
			printf(dbl ? "%016llx\n" : "%08llx\n", (unsigned long long)e[i]);
		return 0;
	}
	if (!strcmp(mode, "values") && argc == 3) {
		values(find(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of native.cpp\n");
	return 2;
}
