// c10/util/BFloat16.h - bfloat16 (`c10::BFloat16`, `at::BFloat16`): the top 16 bits of a
// float; conversion from float rounds to nearest even, NaN stays NaN.
#ifndef Q7_C10_BFLOAT16_H
#define Q7_C10_BFLOAT16_H

#include <stdint.h>
#include <limits>
#include <c10/util/Half.h>

namespace c10 {

namespace detail {

inline uint16_t f32_to_bf16(float f)
{
	uint32_t u = f32_bits(f);
	if ((u & 0x7FFFFFFFu) > 0x7F800000u)
		return uint16_t((u >> 16) | 0x0040u);
	return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

inline float bf16_to_f32(uint16_t b) { return f32_from_bits(uint32_t(b) << 16); }

} // namespace detail

struct alignas(2) BFloat16 {
	uint16_t x;

	struct from_bits_t {};
	static constexpr from_bits_t from_bits() { return from_bits_t(); }

	BFloat16() = default;
	constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
	BFloat16(float value) : x(detail::f32_to_bf16(value)) {}
	operator float() const { return detail::bf16_to_f32(x); }
};

} // namespace c10

namespace std {
template <> class numeric_limits<c10::BFloat16> {
public:
	static constexpr bool is_specialized = true;
	static constexpr bool is_signed = true;
	static constexpr bool is_integer = false;
	static constexpr bool is_exact = false;
	static constexpr bool has_infinity = true;
	static constexpr bool has_quiet_NaN = true;
	static constexpr bool has_signaling_NaN = true;
	static constexpr bool is_iec559 = false;
	static constexpr bool is_bounded = true;
	static constexpr int digits = 8;
	static constexpr int digits10 = 2;
	static constexpr int max_digits10 = 4;
	static constexpr int radix = 2;
	static constexpr int min_exponent = -125;
	static constexpr int max_exponent = 128;
	static constexpr c10::BFloat16 min() { return c10::BFloat16(0x0080, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 lowest() { return c10::BFloat16(0xFF7F, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 max() { return c10::BFloat16(0x7F7F, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 epsilon() { return c10::BFloat16(0x3C00, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 infinity() { return c10::BFloat16(0x7F80, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 quiet_NaN() { return c10::BFloat16(0x7FC0, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 signaling_NaN() { return c10::BFloat16(0x7F80 | 0x0001, c10::BFloat16::from_bits()); }
	static constexpr c10::BFloat16 denorm_min() { return c10::BFloat16(0x0001, c10::BFloat16::from_bits()); }
};
} // namespace std

#endif
