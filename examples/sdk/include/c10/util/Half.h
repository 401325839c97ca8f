// c10/util/Half.h - IEEE binary16 (`c10::Half`, `at::Half`): storage of 16 bits, conversions to
// and from float in integer arithmetic (round to nearest even, NaN stays NaN); arithmetic goes
// through float.
#ifndef Q7_C10_HALF_H
#define Q7_C10_HALF_H

#include <stdint.h>
#include <limits>

namespace c10 {

namespace detail {

inline uint32_t f32_bits(float f)
{
	uint32_t u;
	__builtin_memcpy(&u, &f, 4);
	return u;
}

inline float f32_from_bits(uint32_t u)
{
	float f;
	__builtin_memcpy(&f, &u, 4);
	return f;
}

inline float fp16_to_f32(uint16_t h)
{
	uint32_t sign = uint32_t(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1Fu;
	uint32_t man = h & 0x3FFu;
	if (exp == 0x1F)
		return f32_from_bits(sign | 0x7F800000u | (man << 13));
	if (exp != 0)
		return f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
	if (man == 0)
		return f32_from_bits(sign);
	/* Subnormal: man * 2^-24; normalise so bit 10 is the implicit one. */
	uint32_t shift = 0;
	while ((man & 0x400u) == 0) {
		man <<= 1;
		shift++;
	}
	return f32_from_bits(sign | ((113 - shift) << 23) | ((man & 0x3FFu) << 13));
}

inline uint16_t f32_to_fp16(float f)
{
	uint32_t u = f32_bits(f);
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t abs = u & 0x7FFFFFFFu;
	if (abs > 0x7F800000u)
		return uint16_t(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
	if (abs >= 0x47800000u) /* >= 2^16: infinity (also for the infinities) */
		return uint16_t(sign | 0x7C00u);
	int32_t e = int32_t(abs >> 23) - 112; /* binary16 biased exponent */
	uint32_t man = abs & 0x7FFFFFu;
	if (e <= 0) {
		if (e < -10)
			return uint16_t(sign);
		uint32_t m = man | 0x800000u;
		uint32_t shift = uint32_t(14 - e);
		uint32_t h = m >> shift;
		uint32_t rem = m & ((1u << shift) - 1);
		uint32_t half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return uint16_t(sign | h);
	}
	uint32_t h = (uint32_t(e) << 10) | (man >> 13);
	uint32_t rem = man & 0x1FFFu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++; /* may carry into the exponent, up to infinity */
	return uint16_t(sign | h);
}

} // namespace detail

struct alignas(2) Half {
	uint16_t x;

	struct from_bits_t {};
	static constexpr from_bits_t from_bits() { return from_bits_t(); }

	Half() = default;
	constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
	Half(float value) : x(detail::f32_to_fp16(value)) {}
	operator float() const { return detail::fp16_to_f32(x); }
};

} // namespace c10

namespace std {
template <> class numeric_limits<c10::Half> {
public:
	static constexpr bool is_specialized = true;
	static constexpr bool is_signed = true;
	static constexpr bool is_integer = false;
	static constexpr bool is_exact = false;
	static constexpr bool has_infinity = true;
	static constexpr bool has_quiet_NaN = true;
	static constexpr bool has_signaling_NaN = true;
	static constexpr bool is_iec559 = true;
	static constexpr bool is_bounded = true;
	static constexpr int digits = 11;
	static constexpr int digits10 = 3;
	static constexpr int max_digits10 = 5;
	static constexpr int radix = 2;
	static constexpr int min_exponent = -13;
	static constexpr int max_exponent = 16;
	static constexpr c10::Half min() { return c10::Half(0x0400, c10::Half::from_bits()); }
	static constexpr c10::Half lowest() { return c10::Half(0xFBFF, c10::Half::from_bits()); }
	static constexpr c10::Half max() { return c10::Half(0x7BFF, c10::Half::from_bits()); }
	static constexpr c10::Half epsilon() { return c10::Half(0x1400, c10::Half::from_bits()); }
	static constexpr c10::Half infinity() { return c10::Half(0x7C00, c10::Half::from_bits()); }
	static constexpr c10::Half quiet_NaN() { return c10::Half(0x7E00, c10::Half::from_bits()); }
	static constexpr c10::Half signaling_NaN() { return c10::Half(0x7D00, c10::Half::from_bits()); }
	static constexpr c10::Half denorm_min() { return c10::Half(0x0001, c10::Half::from_bits()); }
};
} // namespace std

#endif
