// The SDK's pure C++ headers, built with the host compiler against them alone
// (-nostdinc++ -I examples/sdk/include): <type_traits>, <limits> (against <limits.h> and
// <float.h>), <algorithm>, <utility>, <initializer_list>, <cmath>'s float overloads, ArrayRef
// equality and C-order strides, ScalarType tables, TypeMeta, TensorOptions, Scalar conversions,
// c10::Half (all 65536 values both ways against the host's _Float16) and c10::BFloat16 (round half
// to even against a reference in double), and the bit-level <math.h> functions (math.cpp).
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include "check.h"

// ---- <type_traits>, at compile time ----
static_assert(std::is_same<std::remove_cv<const volatile int>::type, int>::value, "remove_cv");
static_assert(std::is_same<std::decay<const int (&)[3]>::type, const int *>::value, "decay array");
static_assert(std::is_same<std::decay<int(double)>::type, int (*)(double)>::value, "decay function");
static_assert(std::is_integral<unsigned long long>::value && !std::is_integral<float>::value, "is_integral");
static_assert(std::is_floating_point<const double>::value, "is_floating_point");
static_assert(std::is_signed<int>::value && !std::is_signed<unsigned>::value && !std::is_signed<bool>::value, "is_signed");
static_assert(std::is_same<std::make_unsigned<long long>::type, unsigned long long>::value, "make_unsigned");
static_assert(std::is_same<std::make_signed<const unsigned char>::type, const signed char>::value, "make_signed");
static_assert(std::is_same<std::common_type<int, long long>::type, long long>::value, "common_type");
static_assert(std::is_same<std::common_type<float, int, double>::type, double>::value, "common_type 3");
static_assert(std::is_same<std::enable_if_t<true, char>, char>::value, "enable_if_t");
static_assert(std::is_same<std::conditional_t<false, int, float>, float>::value, "conditional_t");
static_assert(std::is_convertible<int, double>::value && !std::is_convertible<int *, double>::value, "is_convertible");
static_assert(std::is_function<void(int)>::value && !std::is_function<void (*)(int)>::value, "is_function");
static_assert(std::is_trivially_copyable<c10::Half>::value && std::is_trivially_copyable<c10::BFloat16>::value, "Half is POD-like");
static_assert(sizeof(c10::Half) == 2 && sizeof(c10::BFloat16) == 2, "16-bit storage");
static_assert(std::extent<int[3][4], 1>::value == 4 && std::rank<int[3][4]>::value == 2, "extent/rank");
static_assert(std::is_base_of<std::true_type, std::is_same<int, int>>::value, "is_base_of");
static_assert(std::make_index_sequence<4>::size() == 4, "index_sequence");

// ---- <cmath> float overloads pick the float functions ----
static_assert(std::is_same<decltype(std::sqrt(1.0f)), float>::value, "sqrt(float) is float");
static_assert(std::is_same<decltype(std::floor(2)), double>::value, "floor(int) is double");
static_assert(std::is_same<decltype(std::abs(-1.5f)), float>::value, "abs(float)");

// ---- ScalarType tables ----
static_assert(c10::elementSize(c10::kFloat) == 4 && c10::elementSize(c10::kHalf) == 2 && c10::elementSize(c10::kLong) == 8, "sizes");
static_assert(c10::toIsaDtype(c10::kChar) == 0x2 && c10::toIsaDtype(c10::kByte) == 0x3 && c10::toIsaDtype(c10::kShort) == 0x4 &&
		      c10::toIsaDtype(c10::kInt) == 0x6 && c10::toIsaDtype(c10::kLong) == 0x7 && c10::toIsaDtype(c10::kHalf) == 0x8 &&
		      c10::toIsaDtype(c10::kBFloat16) == 0xA && c10::toIsaDtype(c10::kFloat) == 0xC,
	      "ISA codes of the eight dtypes");
static_assert(c10::fromIsaDtype(0xB) == c10::ScalarType::Undefined && c10::fromIsaDtype(0x5) == c10::ScalarType::Undefined, "rejected codes");
static_assert(c10::CppTypeToScalarType<float>::value == c10::kFloat, "float");
static_assert(c10::CppTypeToScalarType<int32_t>::value == c10::kInt && c10::CppTypeToScalarType<int>::value == c10::kInt, "int");
static_assert(c10::CppTypeToScalarType<int64_t>::value == c10::kLong && c10::CppTypeToScalarType<uint8_t>::value == c10::kByte, "long/byte");
static_assert(c10::CppTypeToScalarType<int8_t>::value == c10::kChar && c10::CppTypeToScalarType<c10::Half>::value == c10::kHalf, "char/half");
static_assert(int(c10::kFloat) == 6 && int(c10::kBFloat16) == 15, "PyTorch's enum values");

static float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// bfloat16 rounding reference: the nearer of the two neighbours in double, the even one on a tie.
static uint16_t bf16_reference(float f)
{
	uint32_t u = bits(f);
	if ((u & 0x7FFFFFFF) > 0x7F800000)
		return uint16_t((u >> 16) | 0x40);
	uint16_t lo = uint16_t(u >> 16);
	if ((u & 0xFFFF) == 0)
		return lo;
	uint16_t hi = uint16_t(lo + 1);
	double dl = fabs(double(f32(uint32_t(lo) << 16)) - double(f)), dh = fabs(double(f32(uint32_t(hi) << 16)) - double(f));
	if ((hi & 0x7FFF) == 0x7F80)
		dh = fabs(double(f32(0x7F7FFFFF)) + double(f32(0x73800000)) - fabs(double(f))); // rounding to inf: 2^128 boundary
	if (dl < dh)
		return lo;
	if (dh < dl)
		return hi;
	return (lo & 1) ? hi : lo;
}

int main()
{
	// ---- <limits> against <limits.h> / <float.h> ----
	CHECK_EQ(std::numeric_limits<int>::max(), INT_MAX);
	CHECK_EQ(std::numeric_limits<int>::min(), (unsigned long long)INT_MIN);
	CHECK_EQ(std::numeric_limits<unsigned>::max(), UINT_MAX);
	CHECK_EQ(std::numeric_limits<long long>::max(), LLONG_MAX);
	CHECK_EQ(std::numeric_limits<long long>::min(), (unsigned long long)LLONG_MIN);
	CHECK_EQ(std::numeric_limits<unsigned long long>::max(), ULLONG_MAX);
	CHECK_EQ(std::numeric_limits<signed char>::min(), (unsigned long long)SCHAR_MIN);
	CHECK_EQ(std::numeric_limits<unsigned char>::max(), UCHAR_MAX);
	CHECK_EQ(std::numeric_limits<short>::max(), SHRT_MAX);
	CHECK_EQ(std::numeric_limits<long>::max(), LONG_MAX);
	CHECK_EQ(std::numeric_limits<char>::is_signed, CHAR_MIN < 0);
	CHECK_EQ(std::numeric_limits<int>::digits, 31);
	CHECK_EQ(std::numeric_limits<int>::digits10, 9);
	CHECK_EQ(std::numeric_limits<unsigned long long>::digits10, 19);
	CHECK_EQ(std::numeric_limits<bool>::max(), true);
	CHECK(std::numeric_limits<float>::max() == FLT_MAX && std::numeric_limits<float>::lowest() == -FLT_MAX);
	CHECK(std::numeric_limits<float>::min() == FLT_MIN && std::numeric_limits<float>::epsilon() == FLT_EPSILON);
	CHECK(std::numeric_limits<double>::epsilon() == DBL_EPSILON && std::numeric_limits<double>::max() == DBL_MAX);
	CHECK_EQ(bits(std::numeric_limits<float>::infinity()), 0x7F800000u);
	CHECK_EQ(bits(std::numeric_limits<float>::denorm_min()), 1u);
	CHECK(std::numeric_limits<float>::quiet_NaN() != std::numeric_limits<float>::quiet_NaN());
	CHECK_EQ(std::numeric_limits<float>::digits, 24);
	CHECK_EQ(std::numeric_limits<float>::max_digits10, 9);
	CHECK_EQ(std::numeric_limits<double>::max_digits10, 17);
	CHECK(!std::numeric_limits<c10::Half>::is_integer && float(std::numeric_limits<c10::Half>::max()) == 65504.0f);
	CHECK(float(std::numeric_limits<c10::BFloat16>::lowest()) == -f32(0x7F7F0000));

	// ---- <algorithm>, <utility>, <initializer_list>, <numeric>, <array> ----
	CHECK_EQ(std::min(3, 7), 3);
	CHECK_EQ(std::max({4, 9, 2, 9, 1}), 9);
	CHECK_EQ(std::min({4, 9, 2, 9, 1}), 1);
	CHECK(std::max(0.5f, -1.0f) == 0.5f);
	CHECK_EQ(std::max(1, 2, [](int a, int b) { return a > b; }), 1);
	std::initializer_list<int64_t> il = {5, 6, 7};
	CHECK_EQ(il.size(), 3u);
	CHECK_EQ(*(il.begin() + 2), 7);
	int v[9] = {5, 3, 8, 1, 9, 2, 7, 4, 6};
	std::sort(v, v + 9);
	CHECK(std::is_sorted(v, v + 9));
	CHECK_EQ(v[0], 1);
	CHECK_EQ(v[8], 9);
	int many[100];
	for (int i = 0; i < 100; i++)
		many[i] = (i * 37) % 101;
	std::sort(many, many + 100, [](int a, int b) { return a > b; });
	CHECK(std::is_sorted(many, many + 100, [](int a, int b) { return a > b; }));
	CHECK_EQ(*std::lower_bound(v, v + 9, 4), 4);
	CHECK_EQ(std::upper_bound(v, v + 9, 4) - v, 4);
	CHECK(std::binary_search(v, v + 9, 7) && !std::binary_search(v, v + 9, 10));
	CHECK_EQ(*std::max_element(many, many + 100), 100);
	CHECK_EQ(std::count(v, v + 9, 3), 1);
	CHECK_EQ(std::accumulate(v, v + 9, 0), 45);
	std::array<int, 4> arr{{1, 2, 3, 4}};
	std::reverse(arr.begin(), arr.end());
	CHECK_EQ(arr[0], 4);
	std::fill(arr.begin(), arr.end(), 7);
	CHECK_EQ(std::accumulate(arr.begin(), arr.end(), 0), 28);
	int a = 1, b = 2;
	std::swap(a, b);
	CHECK(a == 2 && b == 1);
	CHECK_EQ(std::exchange(a, 5), 2);
	auto p = std::make_pair(3, 4.5);
	CHECK(p.first == 3 && p.second == 4.5 && p < std::make_pair(3, 5.0));

	// ---- ArrayRef and strides ----
	int64_t s1[3] = {2, 3, 4};
	c10::IntArrayRef r1(s1, 3);
	CHECK(r1 == c10::IntArrayRef({2, 3, 4}));
	CHECK(r1 != c10::IntArrayRef({2, 3}));
	CHECK(r1 != c10::IntArrayRef({2, 3, 5}));
	CHECK(c10::IntArrayRef() == c10::IntArrayRef({}));
	CHECK_EQ(c10::IntArrayRef(int64_t(7)).size(), 1u);
	int64_t st[3];
	c10::contiguous_strides(r1, st);
	CHECK(st[0] == 12 && st[1] == 4 && st[2] == 1);
	int64_t s2[4] = {1, 2, 7, 4}; // {B, H, T + Z, Z}
	int64_t st2[4];
	c10::contiguous_strides(c10::IntArrayRef(s2, 4), st2);
	CHECK(st2[0] == 56 && st2[1] == 28 && st2[2] == 4 && st2[3] == 1);
	CHECK_EQ(c10::multiply_integers(c10::IntArrayRef(s2, 4)), 56);
	int64_t s3[2] = {5, 0};
	int64_t st3[2];
	c10::contiguous_strides(c10::IntArrayRef(s3, 2), st3);
	CHECK(st3[0] == 1 && st3[1] == 1);

	// ---- TypeMeta, TensorOptions ----
	caffe2::TypeMeta m = caffe2::TypeMeta::fromScalarType(c10::kHalf);
	CHECK(m == c10::kHalf && c10::kHalf == m && m != c10::kFloat);
	CHECK_EQ(m.itemsize(), 2u);
	CHECK(strcmp(m.name(), "Half") == 0);
	CHECK(caffe2::TypeMeta::Make<float>() == c10::kFloat);
	c10::TensorOptions none;
	CHECK(!none.has_dtype() && none.scalar_type_or(c10::kFloat) == c10::kFloat);
	c10::TensorOptions o = c10::TensorOptions().dtype(c10::kInt);
	CHECK(o.has_dtype() && o.dtype() == c10::kInt);
	c10::TensorOptions implicit = c10::kBFloat16;
	CHECK(implicit.scalar_type_or(c10::kFloat) == c10::kBFloat16);
	CHECK(c10::dtype<int8_t>().dtype() == c10::kChar);

	// ---- Scalar ----
	c10::Scalar sd(2.75), si(int64_t(-3)), sb(true), sf(1.5f), sh(c10::Half(0.5f));
	CHECK(sd.isFloatingPoint() && !sd.isIntegral(false));
	CHECK(si.isIntegral(false) && sb.isBoolean() && sb.isIntegral(true));
	CHECK(sd.to<float>() == 2.75f && sd.toDouble() == 2.75 && sd.toInt() == 2 && sd.toLong() == 2);
	CHECK(si.toDouble() == -3.0 && si.toInt() == -3 && si.to<int64_t>() == -3);
	CHECK(sf.toFloat() == 1.5f && sh.toDouble() == 0.5);
	CHECK(float(sd.toHalf()) == 2.75f && float(si.toBFloat16()) == -3.0f);
	CHECK((-sd).toDouble() == -2.75 && (-si).toLong() == 3);
	CHECK(c10::Scalar().toLong() == 0 && sb.toLong() == 1);

	// ---- Half: every bit pattern to float, and back ----
	int half_bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		_Float16 ref;
		uint16_t hb = uint16_t(h);
		memcpy(&ref, &hb, 2);
		float want = float(ref);
		float got = float(c10::Half(hb, c10::Half::from_bits()));
		if (want != want ? got == got : bits(got) != bits(want))
			half_bad++;
		else if (want == want && c10::Half(got).x != hb)
			half_bad++;
	}
	CHECK_EQ(half_bad, 0);
	// float -> half at and around every half's midpoint (ties to even), and over all exponents.
	int round_bad = 0;
	for (uint32_t h = 0; h < 0x7C00; h++) {
		float lo = float(c10::Half(uint16_t(h), c10::Half::from_bits()));
		float hi = float(c10::Half(uint16_t(h + 1), c10::Half::from_bits()));
		float mid = float((double(lo) + double(hi)) / 2);
		float probes[4] = {mid, f32(bits(mid) - 1), f32(bits(mid) + 1), lo};
		for (float f : probes)
			for (float g : {f, -f}) {
				_Float16 ref = (_Float16)g;
				uint16_t rb;
				memcpy(&rb, &ref, 2);
				if (c10::Half(g).x != rb)
					round_bad++;
			}
	}
	for (uint32_t e = 0; e < 256; e++)
		for (uint32_t k = 0; k < 64; k++) {
			float g = f32((e << 23) | (k * 0x1FFFF + e * 7));
			_Float16 ref = (_Float16)g;
			uint16_t rb;
			memcpy(&rb, &ref, 2);
			uint16_t q = c10::Half(g).x;
			bool nan = (bits(g) & 0x7FFFFFFF) > 0x7F800000;
			if (nan ? (q & 0x7FFF) <= 0x7C00 : q != rb)
				round_bad++;
		}
	CHECK_EQ(round_bad, 0);
	CHECK_EQ(c10::Half(65520.0f).x, 0x7C00);  // the first value that rounds to infinity
	CHECK_EQ(c10::Half(65519.99f).x, 0x7BFF);

	// ---- BFloat16 ----
	int bf_bad = 0;
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t u = uint32_t(x);
		if (i < 65536)
			u = (uint32_t(i) << 16) | 0x8000; // every exact tie
		float f = f32(u);
		if (c10::BFloat16(f).x != bf16_reference(f))
			bf_bad++;
		if (float(c10::BFloat16(uint16_t(u >> 16), c10::BFloat16::from_bits())) != f32(u & 0xFFFF0000) &&
		    ((u >> 16) & 0x7FFF) <= 0x7F80)
			bf_bad++;
	}
	CHECK_EQ(bf_bad, 0);
	CHECK_EQ(c10::BFloat16(1.0f).x, 0x3F80);
	CHECK_EQ(c10::BFloat16(f32(0x3F808000)).x, 0x3F80); // tie, even stays
	CHECK_EQ(c10::BFloat16(f32(0x3F818000)).x, 0x3F82); // tie, odd rounds up
	CHECK_EQ(c10::BFloat16(f32(0x7FC00001)).x & 0x7FC0, 0x7FC0);

	// ---- <math.h> bit-level functions ----
	double dv[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 1e300, -1e-300, 4503599627370495.5,
		       4503599627370497.0, 123.456, -123.456, 0.9999999999999999};
	for (double d : dv) {
		double fl = floor(d), ce = ceil(d), tr = trunc(d), ro = round(d);
		CHECK(fl <= d && (d - fl < 1.0 || (fl == -1.0 && d > -1.0)) && (fabs(fl) >= 4503599627370496.0 || fl == double((long long)fl)));
		CHECK(ce >= d && (ce - d < 1.0 || (ce == 1.0 && d > 0.0)));
		CHECK(fabs(tr) <= fabs(d) && fabs(d) - fabs(tr) < 1.0 && std::signbit(tr) == std::signbit(d));
		CHECK(fabs(ro - d) <= 0.5 && (fabs(ro - d) < 0.5 || fabs(ro) > fabs(d)));
		CHECK(fabs(d) >= 0 && std::signbit(fabs(d)) == false);
	}
	CHECK(floor(-0.5) == -1.0 && ceil(-0.5) == 0.0 && std::signbit(ceil(-0.5)));
	CHECK(round(2.5) == 3.0 && round(-2.5) == -3.0 && round(0.49999999999999994) == 0.0);
	CHECK(floorf(-1.25f) == -2.0f && ceilf(1.25f) == 2.0f && roundf(0.5f) == 1.0f && truncf(-7.9f) == -7.0f);
	CHECK(copysign(3.0, -0.0) == -3.0 && copysignf(-2.0f, 1.0f) == 2.0f);
	CHECK(fmin(1.0, -2.0) == -2.0 && fmax(1.0, -2.0) == 1.0 && fmin(NAN, 4.0) == 4.0 && fmaxf(3.0f, NAN) == 3.0f);
	CHECK(fminf(-0.0f, 1e-45f) == -0.0f && fmax(-1e300, -1e301) == -1e300);
	CHECK(std::isnan(NAN) && std::isinf(HUGE_VAL) && !std::isfinite(INFINITY) && std::isfinite(1.0f));
	return report();
}
