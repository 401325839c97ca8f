// c10/core/Scalar.h - a number argument or fill value (`at::Scalar`, `torch::Scalar`): a double,
// a signed 64-bit integer or a bool, converted on request like a C++ cast.
#ifndef Q7_C10_SCALAR_H
#define Q7_C10_SCALAR_H

#include <stdint.h>
#include <type_traits>
#include <c10/core/ScalarType.h>

namespace c10 {

class Scalar {
public:
	enum class Tag : uint8_t { Double, Long, Bool };

	Scalar() : tag_(Tag::Long) { v_.i = 0; }
	template <typename T, typename std::enable_if<std::is_floating_point<T>::value, int>::type = 0>
	Scalar(T v) : tag_(Tag::Double)
	{
		v_.d = double(v);
	}
	template <typename T, typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value, int>::type = 0>
	Scalar(T v) : tag_(Tag::Long)
	{
		v_.i = int64_t(v);
	}
	template <typename T, typename std::enable_if<std::is_same<T, bool>::value, int>::type = 0>
	Scalar(T v) : tag_(Tag::Bool)
	{
		v_.i = v ? 1 : 0;
	}
	Scalar(c10::Half v) : tag_(Tag::Double) { v_.d = double(float(v)); }
	Scalar(c10::BFloat16 v) : tag_(Tag::Double) { v_.d = double(float(v)); }

	template <typename T> T to() const
	{
		return tag_ == Tag::Double ? T(v_.d) : T(v_.i);
	}
	double toDouble() const { return to<double>(); }
	float toFloat() const { return to<float>(); }
	int64_t toLong() const { return to<int64_t>(); }
	int toInt() const { return to<int>(); }
	int16_t toShort() const { return to<int16_t>(); }
	int8_t toChar() const { return to<int8_t>(); }
	uint8_t toByte() const { return to<uint8_t>(); }
	c10::Half toHalf() const { return c10::Half(to<float>()); }
	c10::BFloat16 toBFloat16() const { return c10::BFloat16(to<float>()); }
	bool toBool() const { return tag_ == Tag::Double ? v_.d != 0.0 : v_.i != 0; }

	bool isFloatingPoint() const { return tag_ == Tag::Double; }
	bool isIntegral(bool includeBool) const { return tag_ == Tag::Long || (includeBool && tag_ == Tag::Bool); }
	bool isBoolean() const { return tag_ == Tag::Bool; }
	Tag tag() const { return tag_; }
	ScalarType type() const { return tag_ == Tag::Double ? ScalarType::Float : ScalarType::Long; }

	Scalar operator-() const { return tag_ == Tag::Double ? Scalar(-v_.d) : Scalar(int64_t(0) - v_.i); }

private:
	Tag tag_;
	union {
		double d;
		int64_t i;
	} v_;
};

template <> inline bool Scalar::to<bool>() const { return toBool(); }
template <> inline c10::Half Scalar::to<c10::Half>() const { return toHalf(); }
template <> inline c10::BFloat16 Scalar::to<c10::BFloat16>() const { return toBFloat16(); }

} // namespace c10

#endif
