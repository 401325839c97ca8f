// torch/torch.h (host) - what a shape source includes: tensors that carry a shape and a dtype
// but no data, their factories, Scalar, the dtypes and IntArrayRef, in the `torch`, `at` and
// `c10` namespaces as on the device. `q7emu build` compiles the shape sources for the host
// against this directory, with the device SDK's `include/` searched after the host's own
// headers for the c10 headers both share (ScalarType.h, Scalar.h, TensorOptions.h,
// ArrayRef.h: one table of dtypes). examples/sdk/BUILD.md "Projects" lists what a shape
// function may use; a shape function that misuses a tensor (a dim out of range, a negative
// size) stops the shape executable with `q7shape: error: ...`, which `q7emu run` reports.
#ifndef Q7_HOST_TORCH_TORCH_H
#define Q7_HOST_TORCH_TORCH_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <initializer_list>
#include <type_traits>
#include <vector>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>

namespace torchneuron {
namespace detail {
// Stops the shape executable with `q7shape: error: <what>` on stderr and exit status 3.
[[noreturn]] inline void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("q7shape: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
	exit(3);
}
} // namespace detail
} // namespace torchneuron

namespace at {
using namespace c10;

// A tensor's shape and dtype, without storage.
class Tensor {
public:
	Tensor() : dtype_(ScalarType::Undefined), defined_(false) {}
	Tensor(IntArrayRef sizes, ScalarType dtype) : sizes_(sizes.begin(), sizes.end()), dtype_(dtype), defined_(true)
	{
		for (size_t i = 0; i < sizes_.size(); i++)
			if (sizes_[i] < 0)
				torchneuron::detail::fail("a tensor's dim %zu is %lld: sizes are not negative", i,
							  (long long)sizes_[i]);
		if (!isValidScalarType(dtype))
			torchneuron::detail::fail("a tensor of dtype code %d, which no tensor has", int(dtype));
	}

	bool defined() const { return defined_; }
	int64_t dim() const { return int64_t(check("dim").sizes_.size()); }
	int64_t ndimension() const { return dim(); }
	int64_t numel() const { return multiply_integers(check("numel").sizes()); }
	IntArrayRef sizes() const { return IntArrayRef(check("sizes").sizes_.data(), sizes_.size()); }
	int64_t size(int64_t d) const { return check("size").sizes_[wrap("size", d)]; }
	std::vector<int64_t> strides() const
	{
		std::vector<int64_t> s(check("strides").sizes_.size());
		if (!s.empty())
			contiguous_strides(sizes(), s.data());
		return s;
	}
	int64_t stride(int64_t d) const { return strides()[wrap("stride", d)]; }
	ScalarType scalar_type() const { return check("scalar_type").dtype_; }
	caffe2::TypeMeta dtype() const { return caffe2::TypeMeta::fromScalarType(scalar_type()); }
	TensorOptions options() const { return TensorOptions(scalar_type()); }
	int64_t element_size() const { return int64_t(elementSize(scalar_type())); }
	int64_t itemsize() const { return element_size(); }
	int64_t nbytes() const { return numel() * element_size(); }
	bool is_contiguous() const { return true; }

private:
	const Tensor &check(const char *what) const
	{
		if (!defined_)
			torchneuron::detail::fail("%s() of an undefined tensor", what);
		return *this;
	}
	size_t wrap(const char *what, int64_t d) const
	{
		int64_t n = int64_t(sizes_.size());
		int64_t w = d < 0 ? d + n : d;
		if (w < 0 || w >= n)
			torchneuron::detail::fail("%s(%lld) of a %lld-dimensional tensor", what, (long long)d, (long long)n);
		return size_t(w);
	}

	std::vector<int64_t> sizes_;
	ScalarType dtype_;
	bool defined_;
};

// Factories: the dtype of `options`, else kFloat (PyTorch's default), as on the device.
inline Tensor empty(IntArrayRef size, TensorOptions options = {})
{
	return Tensor(size, options.scalar_type_or(kFloat));
}
inline Tensor zeros(IntArrayRef size, TensorOptions options = {}) { return empty(size, options); }
inline Tensor ones(IntArrayRef size, TensorOptions options = {}) { return empty(size, options); }
inline Tensor full(IntArrayRef size, const Scalar &, TensorOptions options = {}) { return empty(size, options); }
// A std::vector of sizes as well (a template, so that a braced list stays an IntArrayRef).
template <typename V, typename = typename std::enable_if<std::is_same<V, std::vector<int64_t> >::value>::type>
Tensor empty(const V &size, TensorOptions options = {})
{
	return empty(IntArrayRef(size.data(), size.size()), options);
}
template <typename V, typename = typename std::enable_if<std::is_same<V, std::vector<int64_t> >::value>::type>
Tensor zeros(const V &size, TensorOptions options = {})
{
	return empty(size, options);
}
template <typename V, typename = typename std::enable_if<std::is_same<V, std::vector<int64_t> >::value>::type>
Tensor ones(const V &size, TensorOptions options = {})
{
	return empty(size, options);
}
template <typename V, typename = typename std::enable_if<std::is_same<V, std::vector<int64_t> >::value>::type>
Tensor full(const V &size, const Scalar &, TensorOptions options = {})
{
	return empty(size, options);
}
inline Tensor eye(int64_t n, TensorOptions options = {}) { return empty({n, n}, options); }
inline Tensor eye(int64_t n, int64_t m, TensorOptions options = {}) { return empty({n, m}, options); }

// Same shape as `self`; the dtype of `options`, else `self`'s.
inline Tensor empty_like(const Tensor &self, TensorOptions options = {})
{
	return Tensor(self.sizes(), options.scalar_type_or(self.scalar_type()));
}
inline Tensor zeros_like(const Tensor &self, TensorOptions options = {}) { return empty_like(self, options); }
inline Tensor ones_like(const Tensor &self, TensorOptions options = {}) { return empty_like(self, options); }
inline Tensor full_like(const Tensor &self, const Scalar &, TensorOptions options = {})
{
	return empty_like(self, options);
}

} // namespace at

namespace torch {
using namespace at;
} // namespace torch

#endif
