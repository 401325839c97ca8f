// ATen/core/Tensor.h - `at::Tensor` (`torch::Tensor`) on the device: a reference-counted handle
// to a contiguous C-order tensor whose storage is an HBM (or core-local) address. Its elements
// are reached only through accessors; copying a handle shares the storage, as in PyTorch.
#ifndef Q7_ATEN_TENSOR_H
#define Q7_ATEN_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <ATen/core/CoherencyEnforcer.h>
#include <ATen/core/TensorAccessor.h>
#include <ATen/core/TensorImpl.h>
#include <ATen/core/TensorStreamAccessor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <q7/customop_abi.h>

namespace at {

class Tensor {
public:
	Tensor() noexcept : impl_(nullptr) {}
	// Adopts one reference to `impl` (the runtime's constructor).
	explicit Tensor(detail::TensorImpl *impl) noexcept : impl_(impl) {}
	Tensor(const Tensor &o) noexcept : impl_(o.impl_)
	{
		if (impl_)
			impl_->refs++;
	}
	Tensor(Tensor &&o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
	~Tensor() { release(); }
	Tensor &operator=(const Tensor &o) & noexcept
	{
		if (o.impl_)
			o.impl_->refs++;
		release();
		impl_ = o.impl_;
		return *this;
	}
	Tensor &operator=(Tensor &&o) & noexcept
	{
		if (this != &o) {
			release();
			impl_ = o.impl_;
			o.impl_ = nullptr;
		}
		return *this;
	}

	bool defined() const { return impl_ != nullptr; }
	size_t use_count() const { return impl_ ? impl_->refs : 0; }

	int64_t dim() const { return impl("dim")->dim; }
	int64_t ndimension() const { return dim(); }
	int64_t numel() const { return impl("numel")->numel; }
	IntArrayRef sizes() const
	{
		const detail::TensorImpl *i = impl("sizes");
		return IntArrayRef(i->sizes, i->dim);
	}
	IntArrayRef strides() const
	{
		const detail::TensorImpl *i = impl("strides");
		return IntArrayRef(i->strides, i->dim);
	}
	int64_t size(int64_t d) const
	{
		const detail::TensorImpl *i = impl("size");
		return i->sizes[wrap(i, "size", d)];
	}
	int64_t stride(int64_t d) const
	{
		const detail::TensorImpl *i = impl("stride");
		return i->strides[wrap(i, "stride", d)];
	}
	ScalarType scalar_type() const { return impl("scalar_type")->dtype; }
	caffe2::TypeMeta dtype() const { return caffe2::TypeMeta::fromScalarType(scalar_type()); }
	TensorOptions options() const { return TensorOptions(scalar_type()); }
	int64_t element_size() const { return int64_t(c10::elementSize(scalar_type())); }
	int64_t itemsize() const { return element_size(); }
	int64_t nbytes() const { return numel() * element_size(); }
	bool is_contiguous() const { return true; }
	// The storage address (seed spelling).
	Q7PtrType q7_data_ptr() const { return impl("q7_data_ptr")->data; }

	// A TensorAccessor<T, N, RO> that counts as open on the tensor while it lives
	// (ATen/core/TensorAccessor.h).
	template <typename T, size_t N> detail::TrackedAccessor<T, N, true> accessor() const &
	{
		detail::TensorImpl *i = impl("accessor");
		detail::accessor_open(i, c10::CppTypeToScalarType<T>::value, N, Q7_ACC_ELEMENT, false);
		return detail::TrackedAccessor<T, N, true>(i->data.addr, i->data.is_local, i->sizes, i);
	}
	template <typename T, size_t N> detail::TrackedAccessor<T, N, false> accessor() &
	{
		detail::TensorImpl *i = impl("accessor");
		detail::accessor_open(i, c10::CppTypeToScalarType<T>::value, N, Q7_ACC_ELEMENT, true);
		return detail::TrackedAccessor<T, N, false>(i->data.addr, i->data.is_local, i->sizes, i);
	}
	// An accessor of a temporary would outlive the sizes it points at.
	template <typename T, size_t N> TensorAccessor<T, N, false> accessor() && = delete;

	// Streams over the elements in storage order (ATen/core/TensorStreamAccessor.h).
	template <typename T> TensorReadStreamAccessor<T> read_stream_accessor() const &
	{
		return TensorReadStreamAccessor<T>(impl("read_stream_accessor"));
	}
	template <typename T> TensorWriteStreamAccessor<T> write_stream_accessor() &
	{
		return TensorWriteStreamAccessor<T>(impl("write_stream_accessor"));
	}
	template <typename T> TensorWriteStreamAccessor<T> write_stream_accessor() const &
	{
		static_assert(sizeof(T) == 0,
			      "write_stream_accessor writes the tensor: take it of a non-const Tensor variable");
		return TensorWriteStreamAccessor<T>(impl_);
	}

	// The tensor's coherence policy (ATen/core/CoherencyEnforcer.h), shared by every handle
	// to it; COHERENT until set.
	CoherencyEnforcer::Policy get_accessor_coherence_policy() const
	{
		return CoherencyEnforcer::Policy(impl("get_accessor_coherence_policy")->policy);
	}
	void set_accessor_coherence_policy(CoherencyEnforcer::Policy policy) const
	{
		detail::set_policy(impl("set_accessor_coherence_policy"), int(policy));
	}

	// No coherence checks (the public API's TCM accessor has none).
	TensorTcmAccessor<true> tcm_accessor() const &
	{
		detail::TensorImpl *i = impl("tcm_accessor");
		detail::accessor_open(i, ScalarType::Undefined, 0, Q7_ACC_TCM, false);
		return TensorTcmAccessor<true>(i);
	}
	TensorTcmAccessor<false> tcm_accessor() &
	{
		detail::TensorImpl *i = impl("tcm_accessor");
		detail::accessor_open(i, ScalarType::Undefined, 0, Q7_ACC_TCM, true);
		return TensorTcmAccessor<false>(i);
	}
	TensorTcmAccessor<false> tcm_accessor() && = delete;

	// Sets every element to `v` converted to the tensor's dtype (an element access for the
	// coherence checks).
	Tensor &fill_(const Scalar &v) const
	{
		detail::fill(impl("fill_"), v);
		return const_cast<Tensor &>(*this);
	}
	Tensor &zero_() const { return fill_(Scalar(0)); }

	// The value of a one-element tensor (an element access for the coherence checks).
	template <typename T> T item() const
	{
		detail::TensorImpl *i = impl("item");
		if (i->numel != 1)
			detail::bad_dim(i, "item() of a tensor whose numel is", i->numel);
		return *static_cast<const T *>(detail::item_at(i, c10::CppTypeToScalarType<T>::value));
	}

	// The runtime's view (marshalling, return).
	detail::TensorImpl *unsafeGetTensorImpl() const { return impl_; }

private:
	detail::TensorImpl *impl_;

	detail::TensorImpl *impl(const char *what) const
	{
		if (!impl_)
			detail::undefined_tensor(what);
		return impl_;
	}
	static size_t wrap(const detail::TensorImpl *i, const char *what, int64_t d)
	{
		int64_t w = d < 0 ? d + i->dim : d;
		if (w < 0 || w >= i->dim)
			detail::bad_dim(i, what, d);
		return size_t(w);
	}
	void release() noexcept
	{
		if (impl_ && --impl_->refs == 0)
			detail::impl_destroy(impl_);
		impl_ = nullptr;
	}
};

} // namespace at

#endif
