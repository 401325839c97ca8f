/* kernels.h - what the element-wise ops compute on a chunk of elements in a core-local buffer
 * (docs/sdk-ops.md): conversions between a dtype's elements and 4-byte compute slots, and the
 * per-op loops over slots. Free of device code, so the same text is tested natively
 * (tests/programs/sdk/native/elementwise_test.cpp) and on the emulated core.
 *
 * A slot holds one element of the op's computation dtype widened to 32 bits: a float for Float,
 * Half and BFloat16 (the value of the element, so Half and BFloat16 are computed in float), an
 * int32 for Int, Short, Char and Byte (sign-extended, zero-extended for Byte). A result is
 * rounded (float) or truncated (integer) to the computation dtype when it is stored. */
#ifndef Q7_OPS_KERNELS_H
#define Q7_OPS_KERNELS_H

#include <stdint.h>
#include <c10/core/ScalarType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

namespace q7 {
namespace ops {

using c10::ScalarType;

/* Element and slot access through types that may alias each other: a buffer holds a dtype's
 * elements and the slots they become, in place. */
typedef uint32_t __attribute__((may_alias)) u32a;
typedef int32_t __attribute__((may_alias)) i32a;
typedef float __attribute__((may_alias)) f32a;
typedef uint16_t __attribute__((may_alias)) u16a;
typedef int16_t __attribute__((may_alias)) i16a;

/* Whether `t`'s slots are floats (else int32). */
inline bool float_slots(ScalarType t) { return c10::isFloatingType(t); }

/* The float of slot bits, and back. */
inline float f32(uint32_t u) { return c10::detail::f32_from_bits(u); }
inline uint32_t bits(float f) { return c10::detail::f32_bits(f); }

/* `n` elements of dtype `src` at the start of `buf` become slots (float slots when `to_float`,
 * int32 ones otherwise), in place: backwards, so that a 4-byte slot written never covers an
 * element not yet read. Integers become floats by a C++ conversion (round to nearest even).
 * False for float elements asked to become int32 slots (no op reads them so). */
inline bool load(ScalarType src, bool to_float, uint32_t n, void *buf)
{
	u32a *w = static_cast<u32a *>(buf);
	f32a *f = static_cast<f32a *>(buf);
	i32a *iw = static_cast<i32a *>(buf);
	switch (src) {
	case ScalarType::Float:
		return to_float;
	case ScalarType::Half: {
		const u16a *h = static_cast<const u16a *>(buf);
		for (uint32_t i = n; i-- > 0;)
			f[i] = c10::detail::fp16_to_f32(h[i]);
		return to_float;
	}
	case ScalarType::BFloat16: {
		const u16a *h = static_cast<const u16a *>(buf);
		for (uint32_t i = n; i-- > 0;)
			w[i] = uint32_t(h[i]) << 16;
		return to_float;
	}
	case ScalarType::Int:
		if (to_float)
			for (uint32_t i = 0; i < n; i++)
				f[i] = float(iw[i]);
		return true;
	case ScalarType::Short: {
		const i16a *s = static_cast<const i16a *>(buf);
		if (to_float)
			for (uint32_t i = n; i-- > 0;)
				f[i] = float(s[i]);
		else
			for (uint32_t i = n; i-- > 0;)
				iw[i] = s[i];
		return true;
	}
	case ScalarType::Char: {
		const int8_t *s = static_cast<const int8_t *>(buf);
		if (to_float)
			for (uint32_t i = n; i-- > 0;)
				f[i] = float(s[i]);
		else
			for (uint32_t i = n; i-- > 0;)
				iw[i] = s[i];
		return true;
	}
	case ScalarType::Byte: {
		const uint8_t *s = static_cast<const uint8_t *>(buf);
		if (to_float)
			for (uint32_t i = n; i-- > 0;)
				f[i] = float(s[i]);
		else
			for (uint32_t i = n; i-- > 0;)
				iw[i] = s[i];
		return true;
	}
	default:
		return false;
	}
}

/* Slots of a computation in dtype `t` made values of `t`, in place: floats rounded to Half or
 * BFloat16 (nearest even) and widened back, int32s truncated to Short, Char or Byte and
 * extended back; nothing for Float and Int. */
inline void round_to(ScalarType t, uint32_t n, void *buf)
{
	u32a *w = static_cast<u32a *>(buf);
	f32a *f = static_cast<f32a *>(buf);
	i32a *iw = static_cast<i32a *>(buf);
	switch (t) {
	case ScalarType::Half:
		for (uint32_t i = 0; i < n; i++)
			f[i] = c10::detail::fp16_to_f32(c10::detail::f32_to_fp16(f[i]));
		break;
	case ScalarType::BFloat16:
		for (uint32_t i = 0; i < n; i++)
			w[i] = uint32_t(c10::detail::f32_to_bf16(f[i])) << 16;
		break;
	case ScalarType::Short:
		for (uint32_t i = 0; i < n; i++)
			iw[i] = int16_t(iw[i]);
		break;
	case ScalarType::Char:
		for (uint32_t i = 0; i < n; i++)
			iw[i] = int8_t(iw[i]);
		break;
	case ScalarType::Byte:
		for (uint32_t i = 0; i < n; i++)
			iw[i] = uint8_t(iw[i]);
		break;
	default:
		break;
	}
}

/* `n` slots (float slots when `from_float`) become elements of dtype `dst` at the start of
 * `buf`, in place (forwards): floats rounded to nearest even, int32s truncated (two's
 * complement), int32s to a float dtype through float (as C++ and PyTorch convert them). False
 * for float slots asked to become integers (PyTorch refuses that cast for a result). */
inline bool store(bool from_float, ScalarType dst, uint32_t n, void *buf)
{
	const u32a *w = static_cast<const u32a *>(buf);
	const f32a *f = static_cast<const f32a *>(buf);
	const i32a *iw = static_cast<const i32a *>(buf);
	u16a *h = static_cast<u16a *>(buf);
	switch (dst) {
	case ScalarType::Float:
		if (!from_float) {
			f32a *o = static_cast<f32a *>(buf);
			for (uint32_t i = 0; i < n; i++)
				o[i] = float(iw[i]);
		}
		return true;
	case ScalarType::Half:
		for (uint32_t i = 0; i < n; i++)
			h[i] = c10::detail::f32_to_fp16(from_float ? f[i] : float(iw[i]));
		return true;
	case ScalarType::BFloat16:
		for (uint32_t i = 0; i < n; i++)
			h[i] = c10::detail::f32_to_bf16(from_float ? f[i] : float(iw[i]));
		return true;
	case ScalarType::Int:
		return !from_float;
	case ScalarType::Short:
		for (uint32_t i = 0; i < n && !from_float; i++)
			h[i] = uint16_t(w[i]);
		return !from_float;
	case ScalarType::Char:
	case ScalarType::Byte: {
		uint8_t *b = static_cast<uint8_t *>(buf);
		for (uint32_t i = 0; i < n && !from_float; i++)
			b[i] = uint8_t(w[i]);
		return !from_float;
	}
	default:
		return false;
	}
}

/* ---- the per-op loops ----
 *
 * dst[i] = op(a[i], b[i]) over `n` slots; `dst` may be `a` or `b` (each slot is read before it
 * is written). `p` holds the op's scalars as slots (alpha, clamp bounds). A unary op is given
 * b = a and ignores it. */

struct Params {
	uint32_t s0, s1;
};

typedef void (*SlotFn)(uint32_t n, void *dst, const void *a, const void *b, const Params &p);

/* One loop per element function: F takes float slots, I int32 slots (as uint32_t, so integer
 * arithmetic wraps as two's complement). */
template <float (*F)(float, float, const Params &)>
void float_loop(uint32_t n, void *dst, const void *a, const void *b, const Params &p)
{
	f32a *d = static_cast<f32a *>(dst);
	const f32a *x = static_cast<const f32a *>(a);
	const f32a *y = static_cast<const f32a *>(b);
	for (uint32_t i = 0; i < n; i++)
		d[i] = F(x[i], y[i], p);
}

template <uint32_t (*I)(uint32_t, uint32_t, const Params &)>
void int_loop(uint32_t n, void *dst, const void *a, const void *b, const Params &p)
{
	u32a *d = static_cast<u32a *>(dst);
	const u32a *x = static_cast<const u32a *>(a);
	const u32a *y = static_cast<const u32a *>(b);
	for (uint32_t i = 0; i < n; i++)
		d[i] = I(x[i], y[i], p);
}

/* add: self + alpha * other (PyTorch's add; sub is add with -alpha). The alpha-1 forms skip
 * the multiply, which is exact. */
inline float add_f(float x, float y, const Params &) { return x + y; }
inline float add_alpha_f(float x, float y, const Params &p) { return x + f32(p.s0) * y; }
inline float sub_f(float x, float y, const Params &) { return x - y; }
inline uint32_t add_i(uint32_t x, uint32_t y, const Params &) { return x + y; }
inline uint32_t add_alpha_i(uint32_t x, uint32_t y, const Params &p) { return x + p.s0 * y; }
inline uint32_t sub_i(uint32_t x, uint32_t y, const Params &) { return x - y; }
inline float mul_f(float x, float y, const Params &) { return x * y; }
inline uint32_t mul_i(uint32_t x, uint32_t y, const Params &) { return x * y; }
inline float div_f(float x, float y, const Params &) { return x / y; }

/* Integer power as PyTorch's powi: a negative exponent gives 1 for base 1, ±1 for base -1 (by
 * the exponent's parity) and 0 otherwise; else square-and-multiply, wrapping. `x` and `y` are
 * slots of the computation dtype, so a Byte exponent is never negative. */
inline uint32_t pow_i(uint32_t x, uint32_t y, const Params &)
{
	int32_t b = int32_t(y);
	if (b < 0) {
		if (int32_t(x) == 1)
			return 1;
		if (int32_t(x) == -1)
			return (b & 1) ? uint32_t(-1) : 1u;
		return 0;
	}
	uint32_t r = 1, a = x;
	while (b) {
		if (b & 1)
			r *= a;
		b /= 2;
		a *= a;
	}
	return r;
}

inline uint32_t and_i(uint32_t x, uint32_t y, const Params &) { return x & y; }
inline uint32_t or_i(uint32_t x, uint32_t y, const Params &) { return x | y; }
inline uint32_t not_i(uint32_t x, uint32_t, const Params &) { return ~x; }

/* abs: the sign bit cleared (NaN stays NaN); integers wrap (abs of the most negative value is
 * itself once truncated). */
inline float abs_f(float x, float, const Params &) { return f32(bits(x) & 0x7FFFFFFFu); }
inline uint32_t abs_i(uint32_t x, uint32_t, const Params &) { return int32_t(x) < 0 ? 0u - x : x; }

/* clamp: min(max(x, lo), hi) as std::min(std::max(x, lo), hi), lo = s0, hi = s1: a NaN x stays
 * NaN, and lo > hi gives hi. (A NaN bound makes the whole result NaN before this runs.) */
inline float clamp_f(float x, float, const Params &p)
{
	float lo = f32(p.s0), hi = f32(p.s1);
	float v = x < lo ? lo : x;
	return hi < v ? hi : v;
}
inline uint32_t clamp_i(uint32_t x, uint32_t, const Params &p)
{
	int32_t v = int32_t(x) < int32_t(p.s0) ? int32_t(p.s0) : int32_t(x);
	return uint32_t(int32_t(p.s1) < v ? int32_t(p.s1) : v);
}

} // namespace ops
} // namespace q7

#endif
