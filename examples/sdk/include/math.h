/* math.h - the SDK's own, in soft-float. Implemented: fabs copysign trunc floor ceil round fmin
 * fmax (rt/customop/math.cpp), and the math library of rt/math, whose README.md lists its
 * functions with their error bounds and edge cases; the rest is declared for kernels' source
 * compatibility, and calling one is a link error (examples/sdk/README.md). */
#ifndef Q7_MATH_H
#define Q7_MATH_H

#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))

#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4

#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

typedef float float_t;
typedef double double_t;

#ifdef __cplusplus
extern "C" {
#endif

#define Q7_MATH1(name) double name(double x); float name##f(float x);
#define Q7_MATH2(name) double name(double x, double y); float name##f(float x, float y);
Q7_MATH1(fabs)
Q7_MATH1(trunc)
Q7_MATH1(floor)
Q7_MATH1(ceil)
Q7_MATH1(round)
Q7_MATH1(rint)
Q7_MATH1(nearbyint)
Q7_MATH1(sqrt)
Q7_MATH1(cbrt)
Q7_MATH1(exp)
Q7_MATH1(exp2)
Q7_MATH1(expm1)
Q7_MATH1(log)
Q7_MATH1(log2)
Q7_MATH1(log10)
Q7_MATH1(log1p)
Q7_MATH1(sin)
Q7_MATH1(cos)
Q7_MATH1(tan)
Q7_MATH1(asin)
Q7_MATH1(acos)
Q7_MATH1(atan)
Q7_MATH1(sinh)
Q7_MATH1(cosh)
Q7_MATH1(tanh)
Q7_MATH1(asinh)
Q7_MATH1(acosh)
Q7_MATH1(atanh)
Q7_MATH1(erf)
Q7_MATH1(erfc)
Q7_MATH1(tgamma)
Q7_MATH1(lgamma)
Q7_MATH2(copysign)
Q7_MATH2(fmin)
Q7_MATH2(fmax)
Q7_MATH2(fdim)
Q7_MATH2(fmod)
Q7_MATH2(remainder)
Q7_MATH2(pow)
Q7_MATH2(atan2)
Q7_MATH2(hypot)
#undef Q7_MATH1
#undef Q7_MATH2
double fma(double x, double y, double z);
float fmaf(float x, float y, float z);
long lround(double x);
long lroundf(float x);
long long llround(double x);
long long llroundf(float x);
double frexp(double x, int *e);
float frexpf(float x, int *e);
double ldexp(double x, int e);
float ldexpf(float x, int e);
double scalbn(double x, int e);
float scalbnf(float x, int e);
double modf(double x, double *ip);
float modff(float x, float *ip);
double nan(const char *tag);
float nanf(const char *tag);

#ifdef __cplusplus
}

/* Classification as overloaded functions (C++), as macros (C). */
inline bool isnan(float x) { return __builtin_isnan(x); }
inline bool isnan(double x) { return __builtin_isnan(x); }
inline bool isinf(float x) { return __builtin_isinf(x); }
inline bool isinf(double x) { return __builtin_isinf(x); }
inline bool isfinite(float x) { return __builtin_isfinite(x); }
inline bool isfinite(double x) { return __builtin_isfinite(x); }
inline bool isnormal(float x) { return __builtin_isnormal(x); }
inline bool isnormal(double x) { return __builtin_isnormal(x); }
inline bool signbit(float x) { return __builtin_signbit(x); }
inline bool signbit(double x) { return __builtin_signbit(x); }
inline int fpclassify(float x) { return __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x); }
inline int fpclassify(double x) { return __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x); }
inline float abs(float x) { return fabsf(x); }
inline double abs(double x) { return fabs(x); }
#else
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#endif

/* sin x and cos x at once (a GNU extension; rt/math). */
#ifdef __cplusplus
extern "C" {
#endif
void sincosf(float x, float *sin_x, float *cos_x);
void sincos(double x, double *sin_x, double *cos_x);
#ifdef __cplusplus
}
#endif

#endif
