// ATen/core/TensorImpl.h - what a Tensor handle refers to: dtype, shape, C-order strides and
// the storage address, reference-counted. Internal to the SDK (the runtime creates them).
#ifndef Q7_ATEN_TENSORIMPL_H
#define Q7_ATEN_TENSORIMPL_H

#include <stdint.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>
#include <q7/runtime.h>

namespace at {
using namespace c10;

namespace detail {

constexpr uint8_t NO_ARG = 0xFE;

struct TensorImpl {
	uint32_t refs;
	c10::ScalarType dtype;
	uint8_t dim;
	uint8_t owns;       // the storage came from the HBM heap and goes with the last handle
	uint8_t arg;        // descriptor index, Q7_BIND_OUTPUT for the output, NO_ARG otherwise
	int64_t numel;
	Q7PtrType data;
	int64_t sizes[Q7_MAX_RANK];
	int64_t strides[Q7_MAX_RANK];
	// Accessors open on the tensor, by kind, and its coherence policy (a
	// CoherencyEnforcer::Policy): what the coherence checks of rt/customop/coherence.h see.
	uint16_t open_elements;
	uint16_t open_reads;
	uint16_t open_writes;
	uint8_t policy;
	uint8_t pad;
};

// Runtime entry points behind the inline Tensor API (rt/customop/tensor.cpp).
void impl_destroy(TensorImpl *impl);
// A tensor of `sizes` and `dtype` on fresh HBM (OUT_OF_MEMORY when the heap cannot hold it).
TensorImpl *impl_alloc(c10::ScalarType dtype, c10::IntArrayRef sizes);
// A tensor over existing storage.
TensorImpl *impl_wrap(c10::ScalarType dtype, c10::IntArrayRef sizes, Q7PtrType data, uint8_t arg);
// Checks an accessor request (dims, element type; `dims` 0 and `elem` Undefined check nothing),
// applies the coherence policy to it and reports it on the annotation port. An element accessor
// or a stream (kind Q7_ACC_ELEMENT, _READ_STREAM, _WRITE_STREAM) then counts as open on the
// tensor, and holds a reference to it, until accessor_close; a TCM accessor is neither checked
// for coherence nor counted.
void accessor_open(TensorImpl *impl, c10::ScalarType elem, size_t dims, uint32_t kind, bool write);
void accessor_close(TensorImpl *impl, uint32_t kind);
// A copy of an open element accessor: one more open (no check: the original already is).
void accessor_copy(TensorImpl *impl);
// The one element of a one-element tensor for item<T>(): checked as an element access.
const void *item_at(TensorImpl *impl, c10::ScalarType elem);
// The coherence policy (a CoherencyEnforcer::Policy); any other value stops the kernel.
void set_policy(TensorImpl *impl, int policy);
void fill(TensorImpl *impl, const c10::Scalar &v);
void tcm_copy_in(const TensorImpl *impl, void *tcm, uint64_t offset, uint64_t bytes);
void tcm_copy_out(const TensorImpl *impl, const void *tcm, uint64_t offset, uint64_t bytes);
[[noreturn]] void undefined_tensor(const char *what);
[[noreturn]] void bad_dim(const TensorImpl *impl, const char *what, int64_t d);

} // namespace detail
} // namespace at

#endif
