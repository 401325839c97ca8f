// ATen/core/TensorAccessor.h - element access to a tensor's storage.
//
// `TensorAccessor<T, N, RO>`: strided random access; indexing peels one dimension with address
// arithmetic and the last index translates the element's HBM address (neuron_translate). The
// reference it returns stays valid until three more distinct 16 MiB regions are translated, as on
// hardware. RO accessors (from a const Tensor) give const references.
//
// `TrackedAccessor<T, N, RO>`, what `Tensor::accessor()` hands out: a TensorAccessor that, with
// every copy of it, counts as an open element accessor of its tensor (and keeps the tensor
// alive) until it is destroyed, so that the coherence checks of the stream accessors
// (TensorStreamAccessor.h) see it. The accessors that indexing makes (fewer dimensions) and a
// TensorAccessor copied out of it are not counted: they carry no destructor, which keeps
// indexing as cheap as a plain address computation.
//
// `TensorTcmAccessor<RO>`: bulk copies between a TCM buffer and the tensor's storage in flat
// element order (strides are not consulted), through neuron_memcpy.
#ifndef Q7_ATEN_TENSORACCESSOR_H
#define Q7_ATEN_TENSORACCESSOR_H

#include <stddef.h>
#include <stdint.h>
#include <type_traits>
#include <ATen/core/TensorImpl.h>
#include <c10/util/ArrayRef.h>
#include <q7/runtime.h>

namespace at {

namespace detail {
// Byte offset of index `i` along a dimension of `stride` elements of `size` bytes. The
// contiguous case (stride 1) skips the 64-bit multiply; the empty asm keeps the compiler from
// folding the two paths back into one multiply.
__attribute__((always_inline)) inline uint64_t element_offset(int64_t i, int64_t stride, size_t size)
{
	if (stride == 1) {
		__asm__("" : "+r"(i));
		return uint64_t(i) * size;
	}
	return uint64_t(i * stride) * size;
}
} // namespace detail

template <typename T, size_t N, bool RO = false> class TensorAccessor {
	static_assert(N > 0, "an accessor has at least one dimension");

public:
	TensorAccessor(uint64_t addr, bool local, const int64_t *sizes, const int64_t *strides)
		: addr_(addr), sizes_(sizes), strides_(strides), local_(local) {}

	__attribute__((always_inline)) TensorAccessor<T, N - 1, RO> operator[](int64_t i) const
	{
		return TensorAccessor<T, N - 1, RO>(addr_ + detail::element_offset(i, strides_[0], sizeof(T)), local_,
						    sizes_ + 1, strides_ + 1);
	}
	c10::IntArrayRef sizes() const { return c10::IntArrayRef(sizes_, N); }
	c10::IntArrayRef strides() const { return c10::IntArrayRef(strides_, N); }
	int64_t size(int64_t d) const { return sizes_[d]; }
	int64_t stride(int64_t d) const { return strides_[d]; }

private:
	uint64_t addr_;
	const int64_t *sizes_;
	const int64_t *strides_;
	bool local_;
};

template <typename T, bool RO> class TensorAccessor<T, 1, RO> {
public:
	typedef typename std::conditional<RO, const T &, T &>::type reference;

	TensorAccessor(uint64_t addr, bool local, const int64_t *sizes, const int64_t *strides)
		: addr_(addr), sizes_(sizes), strides_(strides), local_(local) {}

	__attribute__((always_inline)) reference operator[](int64_t i) const
	{
		uint64_t a = addr_ + detail::element_offset(i, strides_[0], sizeof(T));
		return *static_cast<T *>(local_ ? (void *)uintptr_t(a) : q7_translate(a));
	}
	c10::IntArrayRef sizes() const { return c10::IntArrayRef(sizes_, 1); }
	c10::IntArrayRef strides() const { return c10::IntArrayRef(strides_, 1); }
	int64_t size(int64_t d) const { return sizes_[d]; }
	int64_t stride(int64_t d) const { return strides_[d]; }

private:
	uint64_t addr_;
	const int64_t *sizes_;
	const int64_t *strides_;
	bool local_;
};

namespace detail {

// The tensor whose `strides` array `strides` is (a tracked accessor's strides are its tensor's).
inline TensorImpl *impl_of(const int64_t *strides)
{
	return reinterpret_cast<TensorImpl *>(reinterpret_cast<uintptr_t>(strides) - offsetof(TensorImpl, strides));
}

template <typename T, size_t N, bool RO> class TrackedAccessor : public TensorAccessor<T, N, RO> {
public:
	// Adopts one open count of `impl` (Tensor::accessor opened it).
	TrackedAccessor(uint64_t addr, bool local, const int64_t *sizes, TensorImpl *impl)
		: TensorAccessor<T, N, RO>(addr, local, sizes, impl->strides) {}
	TrackedAccessor(const TrackedAccessor &o) : TensorAccessor<T, N, RO>(o) { accessor_copy(impl()); }
	TrackedAccessor &operator=(const TrackedAccessor &o)
	{
		accessor_copy(impl_of(o.strides().data()));
		accessor_close(impl(), Q7_ACC_ELEMENT);
		TensorAccessor<T, N, RO>::operator=(o);
		return *this;
	}
	~TrackedAccessor() { accessor_close(impl(), Q7_ACC_ELEMENT); }

private:
	TensorImpl *impl() const { return impl_of(this->strides().data()); }
};

} // namespace detail

template <bool RO> class TensorTcmAccessor {
public:
	explicit TensorTcmAccessor(const detail::TensorImpl *impl) : impl_(impl) {}

	// Copies elements [tensor_offset, tensor_offset + num_elem) of the tensor to `tcm_ptr`.
	template <typename T> void tensor_to_tcm(T *tcm_ptr, size_t tensor_offset, size_t num_elem) const
	{
		detail::tcm_copy_in(impl_, tcm_ptr, uint64_t(tensor_offset) * sizeof(T), uint64_t(num_elem) * sizeof(T));
	}
	// Copies `num_elem` elements from `tcm_ptr` to the tensor from element `tensor_offset` on.
	template <typename T> void tcm_to_tensor(const T *tcm_ptr, size_t tensor_offset, size_t num_elem) const
	{
		static_assert(!RO || sizeof(T) == 0,
			      "tcm_to_tensor writes the tensor: take tcm_accessor() of a non-const Tensor");
		detail::tcm_copy_out(impl_, tcm_ptr, uint64_t(tensor_offset) * sizeof(T), uint64_t(num_elem) * sizeof(T));
	}

private:
	const detail::TensorImpl *impl_;
};

} // namespace at

#endif
