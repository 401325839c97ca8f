// The element-wise ops' chunk computation (examples/sdk/rt/ops/kernels.h), built with the host
// compiler against the SDK headers (-nostdinc++ -I examples/sdk/include): the conversions
// between each dtype's elements and 4-byte slots, in place, against the host's conversions
// (_Float16, C casts; BFloat16 against round-half-even on the float's bits), and the per-op
// loops against host arithmetic: IEEE float, two's complement wrap-around, PyTorch's integer
// power and std::min/std::max for clamp.
#include <stdint.h>
#include <string.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include "check.h"
#include "kernels.h"

using namespace q7::ops;
using c10::ScalarType;

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float fof(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

// Float results are equal bit for bit, or both NaN.
static bool same(float a, float b) { return (a != a && b != b) || fbits(a) == fbits(b); }

static uint16_t half_bits(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;
	memcpy(&u, &h, 2);
	return u;
}

static float half_value(uint16_t u)
{
	_Float16 h;
	memcpy(&h, &u, 2);
	return (float)h;
}

// BFloat16: the float's top half, rounded to nearest even on the dropped half; NaN quietened.
static uint16_t bf16_bits(float f)
{
	uint32_t u = fbits(f);
	if ((u & 0x7FFFFFFFu) > 0x7F800000u)
		return uint16_t((u >> 16) | 0x40);
	uint32_t top = u >> 16, low = u & 0xFFFFu;
	if (low > 0x8000u || (low == 0x8000u && (top & 1)))
		top++;
	return uint16_t(top);
}

static uint32_t lcg_state = 12345;
static uint32_t lcg()
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lcg_state;
}

static uint32_t buf[65536];

static void loads()
{
	// Half and BFloat16 elements, all 65536 of each, become their float values.
	uint16_t *h = reinterpret_cast<uint16_t *>(buf);
	for (uint32_t i = 0; i < 65536; i++)
		h[i] = uint16_t(i);
	CHECK(load(ScalarType::Half, true, 65536, buf));
	int bad = 0;
	for (uint32_t i = 0; i < 65536; i++)
		bad += !same(fof(buf[i]), half_value(uint16_t(i)));
	CHECK_EQ(bad, 0);
	for (uint32_t i = 0; i < 65536; i++)
		h[i] = uint16_t(i);
	CHECK(load(ScalarType::BFloat16, true, 65536, buf));
	bad = 0;
	for (uint32_t i = 0; i < 65536; i++)
		bad += buf[i] != i << 16;
	CHECK_EQ(bad, 0);
	// Short, Char and Byte elements, every value, become int32 and float slots.
	for (int to_float = 0; to_float < 2; to_float++) {
		int16_t *s = reinterpret_cast<int16_t *>(buf);
		for (uint32_t i = 0; i < 65536; i++)
			s[i] = int16_t(i);
		CHECK(load(ScalarType::Short, to_float, 65536, buf));
		bad = 0;
		for (uint32_t i = 0; i < 65536; i++)
			bad += to_float ? !same(fof(buf[i]), float(int16_t(i))) : int32_t(buf[i]) != int16_t(i);
		CHECK_EQ(bad, 0);
		uint8_t *b = reinterpret_cast<uint8_t *>(buf);
		for (uint32_t i = 0; i < 256; i++)
			b[i] = uint8_t(i);
		CHECK(load(ScalarType::Char, to_float, 256, buf));
		bad = 0;
		for (uint32_t i = 0; i < 256; i++)
			bad += to_float ? !same(fof(buf[i]), float(int8_t(i))) : int32_t(buf[i]) != int8_t(i);
		CHECK_EQ(bad, 0);
		for (uint32_t i = 0; i < 256; i++)
			b[i] = uint8_t(i);
		CHECK(load(ScalarType::Byte, to_float, 256, buf));
		bad = 0;
		for (uint32_t i = 0; i < 256; i++)
			bad += to_float ? !same(fof(buf[i]), float(i)) : buf[i] != i;
		CHECK_EQ(bad, 0);
	}
	// Int elements become floats rounded to nearest even.
	static int32_t ints[65536];
	for (uint32_t i = 0; i < 65536; i++)
		ints[i] = int32_t(lcg()) >> (i % 32);
	memcpy(buf, ints, sizeof ints);
	CHECK(load(ScalarType::Int, true, 65536, buf));
	bad = 0;
	for (uint32_t i = 0; i < 65536; i++)
		bad += !same(fof(buf[i]), float(ints[i]));
	CHECK_EQ(bad, 0);
	memcpy(buf, ints, sizeof ints);
	CHECK(load(ScalarType::Int, false, 65536, buf));
	CHECK(memcmp(buf, ints, sizeof ints) == 0);
	// Float elements never become int32 slots.
	CHECK(!load(ScalarType::Float, false, 1, buf));
	CHECK(!load(ScalarType::Half, false, 1, buf));
	CHECK(!load(ScalarType::Long, true, 1, buf));
}

static void stores()
{
	// Float slots to Half and BFloat16: a spread of a million bit patterns, every class.
	int bad_h = 0, bad_b = 0;
	for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
		float f = fof(uint32_t(u));
		buf[0] = uint32_t(u);
		store(true, ScalarType::Half, 1, buf);
		uint16_t hh = reinterpret_cast<uint16_t *>(buf)[0];
		bad_h += f != f ? (hh & 0x7FFF) <= 0x7C00 : hh != half_bits(f);
		buf[0] = uint32_t(u);
		store(true, ScalarType::BFloat16, 1, buf);
		bad_b += reinterpret_cast<uint16_t *>(buf)[0] != bf16_bits(f);
	}
	CHECK_EQ(bad_h, 0);
	CHECK_EQ(bad_b, 0);
	CHECK(!store(true, ScalarType::Int, 1, buf));
	CHECK(!store(true, ScalarType::Byte, 1, buf));
	// int32 slots to every dtype: truncation, and floats through float.
	static int32_t ints[4096];
	for (uint32_t i = 0; i < 4096; i++)
		ints[i] = int32_t(lcg()) >> (i % 32);
	const ScalarType dsts[] = {ScalarType::Float, ScalarType::Half, ScalarType::BFloat16, ScalarType::Int,
				   ScalarType::Short, ScalarType::Char, ScalarType::Byte};
	for (ScalarType d : dsts) {
		memcpy(buf, ints, sizeof ints);
		CHECK(store(false, d, 4096, buf));
		int bad = 0;
		for (uint32_t i = 0; i < 4096; i++) {
			int32_t v = ints[i];
			switch (d) {
			case ScalarType::Float: bad += !same(reinterpret_cast<float *>(buf)[i], float(v)); break;
			case ScalarType::Half: bad += reinterpret_cast<uint16_t *>(buf)[i] != half_bits(float(v)); break;
			case ScalarType::BFloat16: bad += reinterpret_cast<uint16_t *>(buf)[i] != bf16_bits(float(v)); break;
			case ScalarType::Int: bad += reinterpret_cast<int32_t *>(buf)[i] != v; break;
			case ScalarType::Short: bad += reinterpret_cast<int16_t *>(buf)[i] != int16_t(v); break;
			case ScalarType::Char: bad += reinterpret_cast<int8_t *>(buf)[i] != int8_t(v); break;
			default: bad += reinterpret_cast<uint8_t *>(buf)[i] != uint8_t(v); break;
			}
		}
		CHECK_EQ(bad, 0);
	}
}

static void rounding()
{
	// round_to: floats to the nearest Half / BFloat16 value, int32s wrapped to the dtype.
	int bad = 0;
	for (uint32_t i = 0; i < 65536; i++) {
		uint32_t u = lcg();
		buf[0] = u;
		round_to(ScalarType::Half, 1, buf);
		float f = fof(u);
		bad += !same(fof(buf[0]), half_value(half_bits(f)));
		buf[0] = u;
		round_to(ScalarType::BFloat16, 1, buf);
		bad += f == f && buf[0] != uint32_t(bf16_bits(f)) << 16;
		buf[0] = u;
		round_to(ScalarType::Short, 1, buf);
		bad += int32_t(buf[0]) != int16_t(u);
		buf[0] = u;
		round_to(ScalarType::Char, 1, buf);
		bad += int32_t(buf[0]) != int8_t(u);
		buf[0] = u;
		round_to(ScalarType::Byte, 1, buf);
		bad += buf[0] != uint8_t(u);
		buf[0] = u;
		round_to(ScalarType::Float, 1, buf);
		round_to(ScalarType::Int, 1, buf);
		bad += buf[0] != u;
	}
	CHECK_EQ(bad, 0);
}

// PyTorch's powi by repeated multiplication (the exponent small), wrapping.
static uint32_t naive_pow(uint32_t a, int32_t b)
{
	if (b < 0)
		return int32_t(a) == 1 ? 1u : int32_t(a) == -1 ? ((-b) % 2 ? uint32_t(-1) : 1u) : 0u;
	uint32_t r = 1;
	for (int32_t i = 0; i < b; i++)
		r *= a;
	return r;
}

static void loops()
{
	const Params none{0, 0};
	int bad = 0;
	static float x[4096], y[4096], d[4096];
	for (uint32_t i = 0; i < 4096; i++) {
		x[i] = fof(lcg());
		y[i] = i % 7 ? fof(lcg()) : x[i];
	}
	float alpha = 0.3f;
	Params pa{fbits(alpha), 0};
	float_loop<add_f>(4096, d, x, y, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += !same(d[i], x[i] + y[i]);
	float_loop<add_alpha_f>(4096, d, x, y, pa);
	for (uint32_t i = 0; i < 4096; i++)
		bad += !same(d[i], x[i] + alpha * y[i]);
	float_loop<sub_f>(4096, d, x, y, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += !same(d[i], x[i] - y[i]);
	float_loop<mul_f>(4096, d, x, y, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += !same(d[i], x[i] * y[i]);
	float_loop<div_f>(4096, d, x, y, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += !same(d[i], x[i] / y[i]);
	float_loop<abs_f>(4096, d, x, x, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += fbits(d[i]) != (fbits(x[i]) & 0x7FFFFFFFu);
	CHECK_EQ(bad, 0);

	// clamp as std::min(std::max(x, lo), hi), with NaN elements and lo > hi.
	const float bounds[][2] = {{-1.0f, 1.0f}, {1.0f, -1.0f}, {0.0f, 0.0f}, {-1e30f, 1e-30f}};
	x[5] = fof(0x7FC00000u);
	x[6] = -0.0f;
	for (const auto &b : bounds) {
		float_loop<clamp_f>(4096, d, x, x, Params{fbits(b[0]), fbits(b[1])});
		for (uint32_t i = 0; i < 4096; i++) {
			float m = x[i] < b[0] ? b[0] : x[i]; // std::max(x, lo)
			bad += !same(d[i], b[1] < m ? b[1] : m);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(d[5] != d[5]);

	// Integer loops over uint32 slots: two's complement wrap-around.
	static uint32_t a[4096], b[4096], r[4096];
	for (uint32_t i = 0; i < 4096; i++) {
		a[i] = lcg() >> (i % 32);
		b[i] = lcg() >> (i % 29);
	}
	uint32_t k = 0xFFFFFFF9u; // alpha -7
	int_loop<add_i>(4096, r, a, b, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != a[i] + b[i];
	int_loop<add_alpha_i>(4096, r, a, b, Params{k, 0});
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != uint32_t(int64_t(int32_t(a[i])) - 7 * int64_t(int32_t(b[i])));
	int_loop<sub_i>(4096, r, a, b, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != a[i] - b[i];
	int_loop<mul_i>(4096, r, a, b, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != uint32_t(uint64_t(a[i]) * b[i]);
	int_loop<and_i>(4096, r, a, b, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != (a[i] & b[i]);
	int_loop<or_i>(4096, r, a, b, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != (a[i] | b[i]);
	int_loop<not_i>(4096, r, a, a, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != ~a[i];
	int_loop<abs_i>(4096, r, a, a, none);
	for (uint32_t i = 0; i < 4096; i++)
		bad += r[i] != (int32_t(a[i]) < 0 ? uint32_t(-int64_t(int32_t(a[i]))) : a[i]);
	int_loop<clamp_i>(4096, r, a, a, Params{uint32_t(-1000), 1000000});
	for (uint32_t i = 0; i < 4096; i++) {
		int32_t v = int32_t(a[i]);
		bad += int32_t(r[i]) != (v < -1000 ? -1000 : v > 1000000 ? 1000000 : v);
	}
	CHECK_EQ(bad, 0);

	// pow: every base in [-20, 20] to every exponent in [-5, 60], against repeated multiplication.
	for (int32_t base = -20; base <= 20; base++)
		for (int32_t e = -5; e <= 60; e++)
			bad += pow_i(uint32_t(base), uint32_t(e), none) != naive_pow(uint32_t(base), e);
	CHECK_EQ(bad, 0);
	CHECK_EQ(pow_i(uint32_t(-1), uint32_t(-7), none), uint32_t(-1));
	CHECK_EQ(pow_i(0, uint32_t(-1), none), 0);
}

int main()
{
	loads();
	stores();
	rounding();
	loops();
	return report();
}
