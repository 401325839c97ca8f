// c10/core/ScalarType.h - tensor element types: the eight the custom-op ABI marshals
// (PLATFORM.md "ISA dtype codes"), their C++ element types, sizes and ISA codes; `TypeMeta` for
// `Tensor::dtype()`.
#ifndef Q7_C10_SCALARTYPE_H
#define Q7_C10_SCALARTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <type_traits>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

namespace c10 {

// X(C++ element type, name, PyTorch enum value, ISA dtype code)
#define Q7_SCALAR_TYPES(X)               \
	X(uint8_t, Byte, 0, 0x3)         \
	X(int8_t, Char, 1, 0x2)          \
	X(int16_t, Short, 2, 0x4)        \
	X(int32_t, Int, 3, 0x6)          \
	X(int64_t, Long, 4, 0x7)         \
	X(c10::Half, Half, 5, 0x8)       \
	X(float, Float, 6, 0xC)          \
	X(c10::BFloat16, BFloat16, 15, 0xA)

enum class ScalarType : int8_t {
#define Q7_ST_ENUM(T, name, v, isa) name = v,
	Q7_SCALAR_TYPES(Q7_ST_ENUM)
#undef Q7_ST_ENUM
	Undefined = 0x7F
};

#define Q7_ST_CONST(T, name, v, isa) constexpr ScalarType k##name = ScalarType::name;
Q7_SCALAR_TYPES(Q7_ST_CONST)
#undef Q7_ST_CONST

constexpr bool isValidScalarType(ScalarType t)
{
	return
#define Q7_ST_VALID(T, name, v, isa) t == ScalarType::name ||
		Q7_SCALAR_TYPES(Q7_ST_VALID)
#undef Q7_ST_VALID
		false;
}

constexpr size_t elementSize(ScalarType t)
{
	return
#define Q7_ST_SIZE(T, name, v, isa) t == ScalarType::name ? sizeof(T) :
		Q7_SCALAR_TYPES(Q7_ST_SIZE)
#undef Q7_ST_SIZE
		0;
}

inline const char *toString(ScalarType t)
{
	return
#define Q7_ST_NAME(T, name, v, isa) t == ScalarType::name ? #name :
		Q7_SCALAR_TYPES(Q7_ST_NAME)
#undef Q7_ST_NAME
		"Undefined";
}

// The ISA dtype code of `t` (0xF, INVALID, for Undefined).
constexpr uint8_t toIsaDtype(ScalarType t)
{
	return
#define Q7_ST_ISA(T, name, v, isa) t == ScalarType::name ? uint8_t(isa) :
		Q7_SCALAR_TYPES(Q7_ST_ISA)
#undef Q7_ST_ISA
		uint8_t(0xF);
}

// The ScalarType of an accepted ISA dtype code; Undefined for the rejected ones.
constexpr ScalarType fromIsaDtype(uint8_t code)
{
	return
#define Q7_ST_FROM(T, name, v, isa) code == (isa) ? ScalarType::name :
		Q7_SCALAR_TYPES(Q7_ST_FROM)
#undef Q7_ST_FROM
		ScalarType::Undefined;
}

constexpr bool isFloatingType(ScalarType t)
{
	return t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16;
}

constexpr bool isIntegralType(ScalarType t, bool /*includeBool*/ = false)
{
	return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short || t == ScalarType::Int ||
	       t == ScalarType::Long;
}

// The ScalarType whose elements a C++ type `T` reads. Integer types map by size and sign, so
// `int`, `long` and `int32_t` all read kInt tensors; types with no tensor dtype do not compile.
template <typename T, typename = void> struct CppTypeToScalarType {
	static_assert(sizeof(T) == 0, "no tensor dtype has this element type");
};
template <> struct CppTypeToScalarType<float> : std::integral_constant<ScalarType, ScalarType::Float> {};
template <> struct CppTypeToScalarType<c10::Half> : std::integral_constant<ScalarType, ScalarType::Half> {};
template <> struct CppTypeToScalarType<c10::BFloat16> : std::integral_constant<ScalarType, ScalarType::BFloat16> {};
namespace detail {
template <typename T> constexpr ScalarType int_scalar_type()
{
	return std::is_signed<T>::value ? (sizeof(T) == 1   ? ScalarType::Char
					   : sizeof(T) == 2 ? ScalarType::Short
					   : sizeof(T) == 4 ? ScalarType::Int
							    : ScalarType::Long)
					: ScalarType::Byte;
}
} // namespace detail
template <typename T>
struct CppTypeToScalarType<T, typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value>::type>
	: std::integral_constant<ScalarType, detail::int_scalar_type<T>()> {
	static_assert(std::is_signed<T>::value || sizeof(T) == 1,
		      "no tensor dtype has this unsigned element type (kByte is the only unsigned one)");
};
template <typename T> struct CppTypeToScalarType<const T> : CppTypeToScalarType<T> {};

} // namespace c10

namespace caffe2 {

// What `Tensor::dtype()` returns: compares with ScalarType and TypeMeta.
class TypeMeta {
	c10::ScalarType t_;

public:
	constexpr TypeMeta() : t_(c10::ScalarType::Undefined) {}
	static constexpr TypeMeta fromScalarType(c10::ScalarType t) { return TypeMeta(t, 0); }
	template <typename T> static constexpr TypeMeta Make() { return TypeMeta(c10::CppTypeToScalarType<T>::value, 0); }
	constexpr c10::ScalarType toScalarType() const { return t_; }
	constexpr size_t itemsize() const { return c10::elementSize(t_); }
	const char *name() const { return c10::toString(t_); }
	template <typename T> constexpr bool Match() const { return t_ == c10::CppTypeToScalarType<T>::value; }

private:
	constexpr TypeMeta(c10::ScalarType t, int) : t_(t) {}
};

constexpr bool operator==(TypeMeta a, TypeMeta b) { return a.toScalarType() == b.toScalarType(); }
constexpr bool operator!=(TypeMeta a, TypeMeta b) { return !(a == b); }
constexpr bool operator==(TypeMeta a, c10::ScalarType b) { return a.toScalarType() == b; }
constexpr bool operator!=(TypeMeta a, c10::ScalarType b) { return !(a == b); }
constexpr bool operator==(c10::ScalarType a, TypeMeta b) { return a == b.toScalarType(); }
constexpr bool operator!=(c10::ScalarType a, TypeMeta b) { return !(a == b); }

} // namespace caffe2

namespace c10 {
using caffe2::TypeMeta;
constexpr ScalarType typeMetaToScalarType(TypeMeta m) { return m.toScalarType(); }
constexpr TypeMeta scalarTypeToTypeMeta(ScalarType t) { return TypeMeta::fromScalarType(t); }
} // namespace c10

#endif
