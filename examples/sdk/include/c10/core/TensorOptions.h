// c10/core/TensorOptions.h - what a factory is asked for. Only the dtype matters on the device;
// a factory given none makes kFloat, PyTorch's default. Device, layout and requires_grad are
// accepted and ignored.
#ifndef Q7_C10_TENSOROPTIONS_H
#define Q7_C10_TENSOROPTIONS_H

#include <c10/core/ScalarType.h>

namespace c10 {

class TensorOptions {
	ScalarType dtype_;
	bool has_dtype_;

public:
	constexpr TensorOptions() : dtype_(ScalarType::Float), has_dtype_(false) {}
	constexpr TensorOptions(ScalarType t) : dtype_(t), has_dtype_(true) {}
	constexpr TensorOptions(TypeMeta t) : dtype_(t.toScalarType()), has_dtype_(true) {}

	constexpr TensorOptions dtype(ScalarType t) const { return TensorOptions(t); }
	constexpr TensorOptions dtype(TypeMeta t) const { return TensorOptions(t); }
	template <typename T> constexpr TensorOptions dtype() const { return TensorOptions(CppTypeToScalarType<T>::value); }
	constexpr TypeMeta dtype() const { return TypeMeta::fromScalarType(dtype_); }
	constexpr bool has_dtype() const { return has_dtype_; }
	constexpr TensorOptions requires_grad(bool) const { return *this; }
	constexpr bool requires_grad() const { return false; }

	// The dtype a factory makes: the given one, else `fallback`.
	constexpr ScalarType scalar_type_or(ScalarType fallback) const { return has_dtype_ ? dtype_ : fallback; }
};

constexpr TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
template <typename T> constexpr TensorOptions dtype() { return TensorOptions(CppTypeToScalarType<T>::value); }

} // namespace c10

#endif
