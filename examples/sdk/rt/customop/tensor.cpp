/* tensor.cpp - what the inline tensor API calls: tensor objects (in the libc heap), factories
 * (storage in the HBM heap), fill_, the accessor checks with the coherence policy
 * (coherence.h) and the TCM accessor's copies. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ATen/ATen.h>
#include <q7/customop_abi.h>
#include <q7/rt_state.h>
#include <q7/runtime.h>

#include "coherence.h"
#include "rt.h"

using namespace q7::rt;

namespace at {
namespace detail {

namespace {

TensorImpl *impl_new(ScalarType dtype, IntArrayRef sizes)
{
	if (!c10::isValidScalarType(dtype))
		q7_fatal(Q7_ERR_ABORT, "kernel %s: a tensor of an unsupported dtype (%d)", op_name(), int(dtype));
	if (sizes.size() > Q7_MAX_RANK)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: a tensor of %u dims; at most %u", op_name(), (unsigned)sizes.size(),
			 (unsigned)Q7_MAX_RANK);
	int64_t numel = 1;
	for (size_t i = 0; i < sizes.size(); i++) {
		if (sizes[i] < 0)
			q7_fatal(Q7_ERR_ABORT, "kernel %s: a tensor with negative size %lld in dim %u", op_name(),
				 (long long)sizes[i], (unsigned)i);
		numel *= sizes[i];
	}
	TensorImpl *t = static_cast<TensorImpl *>(malloc(sizeof(TensorImpl)));
	if (!t)
		q7_fatal(Q7_ERR_OUT_OF_MEMORY, "kernel %s: the libc heap cannot hold another tensor object (%u bytes)",
			 op_name(), (unsigned)sizeof(TensorImpl));
	t->refs = 1;
	t->dtype = dtype;
	t->dim = uint8_t(sizes.size());
	t->owns = 0;
	t->arg = NO_ARG;
	t->numel = numel;
	t->data = Q7PtrType::null();
	for (size_t i = 0; i < Q7_MAX_RANK; i++)
		t->sizes[i] = t->strides[i] = 0;
	for (size_t i = 0; i < sizes.size(); i++)
		t->sizes[i] = sizes[i];
	c10::contiguous_strides(sizes, t->strides);
	t->open_elements = t->open_reads = t->open_writes = 0;
	t->policy = at::CoherencyEnforcer::COHERENT;
	t->pad = 0;
	return t;
}

uint64_t nbytes(const TensorImpl *t) { return uint64_t(t->numel) * c10::elementSize(t->dtype); }

/* Element `v` of dtype `t` as bytes (little-endian), the count. */
uint32_t encode(ScalarType t, const Scalar &v, uint8_t *out)
{
	switch (t) {
#define Q7_ENCODE(T, name, e, isa)                   \
	case ScalarType::name: {                     \
		T x = v.to<T>();                     \
		__builtin_memcpy(out, &x, sizeof x); \
		return sizeof x;                     \
	}
		Q7_SCALAR_TYPES(Q7_ENCODE)
#undef Q7_ENCODE
	default:
		return 0;
	}
}

void check_range(const TensorImpl *t, const char *what, uint64_t offset, uint64_t bytes)
{
	uint64_t size = nbytes(t);
	if (offset > size || bytes > size - offset)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: bytes [%llu, %llu) lie outside the tensor's %llu bytes", op_name(), what,
			 (unsigned long long)offset, (unsigned long long)(offset + bytes), (unsigned long long)size);
}

} // namespace

void impl_destroy(TensorImpl *t)
{
	if (t->owns && !t->data.is_nullptr)
		hbm_free(t->data.addr, Q7_HEAP_HBM, "tensor storage");
	free(t);
}

TensorImpl *impl_alloc(ScalarType dtype, IntArrayRef sizes)
{
	TensorImpl *t = impl_new(dtype, sizes);
	uint64_t bytes = nbytes(t);
	uint64_t p = hbm_alloc(bytes ? bytes : 1, 64, Q7_HEAP_HBM);
	if (!p)
		q7_fatal(Q7_ERR_OUT_OF_MEMORY, "kernel %s: the HBM heap cannot hold a %s tensor of %llu bytes", op_name(),
			 c10::toString(dtype), (unsigned long long)bytes);
	t->data = Q7PtrType::hbm(p);
	t->owns = 1;
	return t;
}

TensorImpl *impl_wrap(ScalarType dtype, IntArrayRef sizes, Q7PtrType data, uint8_t arg)
{
	TensorImpl *t = impl_new(dtype, sizes);
	t->data = data;
	t->arg = arg;
	return t;
}

} // namespace detail
} // namespace at

const char *q7::rt::tensor_name(uint8_t arg, uint64_t addr, bool local)
{
	static char name[48];
	if (arg == Q7_BIND_OUTPUT)
		return "the output";
	if (arg < Q7_MAX_ARGS)
		snprintf(name, sizeof name, "argument %u", (unsigned)arg);
	else
		snprintf(name, sizeof name, "the tensor at %s 0x%llx", local ? "local" : "HBM", (unsigned long long)addr);
	return name;
}

namespace at {
namespace detail {

namespace {

/* The line a possibly incoherent access allowed by INCOHERENT_VERBOSE prints starts with this. */
constexpr const char WARNING_PREFIX[] = "q7 warning: ";

/* Applies `t`'s coherence policy to `access` (`what`: how the message says it). */
void cohere(const TensorImpl *t, q7::coherence::Access access, const char *what)
{
	q7::coherence::Conflict c = q7::coherence::check(q7::coherence::Open{t->open_elements, t->open_reads, t->open_writes}, access);
	if (c == q7::coherence::NONE || t->policy == at::CoherencyEnforcer::INCOHERENT_QUIET)
		return;
	const char *name = tensor_name(t->arg, t->data.addr, t->data.is_local);
	const char *policy = q7::coherence::policy_name(t->policy);
	if (t->policy == at::CoherencyEnforcer::COHERENT)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: %s while %s is open on it: possibly incoherent access (coherence policy %s)",
			 op_name(), name, what, q7::coherence::open_one(c), policy);
	printf("%skernel %s: %s: %s while %s is open on it: possibly incoherent access (coherence policy %s)\n",
	       WARNING_PREFIX, op_name(), name, what, q7::coherence::open_one(c), policy);
}

void check_element_type(const TensorImpl *t, ScalarType elem, const char *what)
{
	if (elem != ScalarType::Undefined && elem != t->dtype)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s of %s elements on a %s tensor", op_name(), what, c10::toString(elem),
			 c10::toString(t->dtype));
}

void trace_accessor(const TensorImpl *t, uint32_t kind, bool write)
{
	q7_trace4(Q7_EV_ACCESSOR, kind, uint32_t(t->data.addr), uint32_t(t->data.addr >> 32), write ? 1 : 0);
}

} // namespace

void accessor_open(TensorImpl *t, ScalarType elem, size_t dims, uint32_t kind, bool write)
{
	check_element_type(t, elem, kind == Q7_ACC_READ_STREAM ? "a read stream" : kind == Q7_ACC_WRITE_STREAM ? "a write stream" : "an accessor");
	if (dims != 0 && dims != t->dim)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: a %u-dim accessor on a %u-dim tensor", op_name(), (unsigned)dims,
			 (unsigned)t->dim);
	switch (kind) {
	case Q7_ACC_ELEMENT:
		cohere(t, q7::coherence::OPEN_ELEMENT, "an element accessor opened");
		t->open_elements++;
		break;
	case Q7_ACC_READ_STREAM:
		cohere(t, q7::coherence::OPEN_READ_STREAM, "a read stream opened");
		t->open_reads++;
		break;
	case Q7_ACC_WRITE_STREAM:
		cohere(t, q7::coherence::OPEN_WRITE_STREAM, "a write stream opened");
		t->open_writes++;
		break;
	default:
		/* The TCM accessor: neither checked nor counted. */
		trace_accessor(t, kind, write);
		return;
	}
	t->refs++;
	trace_accessor(t, kind, write);
}

void accessor_close(TensorImpl *t, uint32_t kind)
{
	uint16_t &open = kind == Q7_ACC_READ_STREAM ? t->open_reads : kind == Q7_ACC_WRITE_STREAM ? t->open_writes : t->open_elements;
	open--;
	if (--t->refs == 0)
		impl_destroy(t);
}

void accessor_copy(TensorImpl *t)
{
	t->open_elements++;
	t->refs++;
}

const void *item_at(TensorImpl *t, ScalarType elem)
{
	check_element_type(t, elem, "item()");
	cohere(t, q7::coherence::OPEN_ELEMENT, "item() reads");
	trace_accessor(t, Q7_ACC_ELEMENT, false);
	return t->data.translate();
}

void set_policy(TensorImpl *t, int policy)
{
	if (policy < 0 || uint32_t(policy) >= q7::coherence::POLICIES)
		q7_fatal(Q7_ERR_ABORT,
			 "kernel %s: set_accessor_coherence_policy(%d): not a CoherencyEnforcer::Policy (0 COHERENT, 1 "
			 "INCOHERENT_VERBOSE, 2 INCOHERENT_QUIET)",
			 op_name(), policy);
	t->policy = uint8_t(policy);
}

void fill(TensorImpl *t, const Scalar &v)
{
	cohere(t, q7::coherence::OPEN_ELEMENT, "fill_() writes");
	uint8_t pattern[8];
	uint32_t psize = encode(t->dtype, v, pattern);
	if (t->numel > 0)
		fill_pattern(t->data.addr, t->data.is_local, pattern, psize, nbytes(t));
}

void tcm_copy_in(const TensorImpl *t, void *tcm, uint64_t offset, uint64_t bytes)
{
	check_range(t, "tensor_to_tcm", offset, bytes);
	copy(uintptr_t(tcm), true, t->data.addr + offset, t->data.is_local, bytes);
}

void tcm_copy_out(const TensorImpl *t, const void *tcm, uint64_t offset, uint64_t bytes)
{
	check_range(t, "tcm_to_tensor", offset, bytes);
	copy(t->data.addr + offset, t->data.is_local, uintptr_t(tcm), true, bytes);
}

void undefined_tensor(const char *what) { q7_fatal(Q7_ERR_ABORT, "kernel %s: %s() of an undefined tensor", op_name(), what); }

void bad_dim(const TensorImpl *t, const char *what, int64_t d)
{
	q7_fatal(Q7_ERR_ABORT, "kernel %s: %s %lld (the tensor has %u dims)", op_name(), what, (long long)d, (unsigned)t->dim);
}

} // namespace detail

namespace {

Tensor make(IntArrayRef size, TensorOptions options) { return Tensor(detail::impl_alloc(options.scalar_type_or(kFloat), size)); }

Tensor make_filled(IntArrayRef size, TensorOptions options, const Scalar &v)
{
	Tensor t = make(size, options);
	t.fill_(v);
	return t;
}

TensorOptions like(const Tensor &self, TensorOptions options)
{
	return options.has_dtype() ? options : TensorOptions(self.scalar_type());
}

} // namespace

Tensor empty(IntArrayRef size, TensorOptions options) { return make(size, options); }
Tensor zeros(IntArrayRef size, TensorOptions options) { return make_filled(size, options, Scalar(0)); }
Tensor ones(IntArrayRef size, TensorOptions options) { return make_filled(size, options, Scalar(1)); }
Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options) { return make_filled(size, options, fill_value); }

Tensor eye(int64_t n, TensorOptions options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, TensorOptions options)
{
	int64_t dims[2] = {n, m};
	Tensor t = make_filled(IntArrayRef(dims, 2), options, Scalar(0));
	const detail::TensorImpl *i = t.unsafeGetTensorImpl();
	uint8_t one[8];
	uint32_t size = detail::encode(i->dtype, Scalar(1), one);
	int64_t k = n < m ? n : m;
	for (int64_t d = 0; d < k; d++) {
		Q7PtrType p = i->data + int64_t((d * m + d) * int64_t(size));
		uint8_t *e = static_cast<uint8_t *>(p.translate());
		for (uint32_t b = 0; b < size; b++)
			e[b] = one[b];
	}
	return t;
}

Tensor empty_like(const Tensor &self, TensorOptions options) { return make(self.sizes(), like(self, options)); }
Tensor zeros_like(const Tensor &self, TensorOptions options) { return zeros(self.sizes(), like(self, options)); }
Tensor ones_like(const Tensor &self, TensorOptions options) { return ones(self.sizes(), like(self, options)); }
Tensor full_like(const Tensor &self, const Scalar &fill_value, TensorOptions options)
{
	return full(self.sizes(), fill_value, like(self, options));
}

} // namespace at
