/* marshal.cpp - the wrapper's entry points (PLATFORM.md "ARG_TENSOR descriptor"): setup reads
 * and checks every descriptor, customop_next_* hand them out in order as tensors or scalars,
 * customop_return_tensor checks the result against the OUTPUT descriptor and copies it there,
 * customop_cleanup drains, fences and responds. Phases are reported on the annotation port. */
#include <stdint.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>
#include <q7/rt_state.h>
#include <neuron/wrapper_api.h>

#include "descriptor.h"
#include "rt.h"

namespace q7 {
namespace rt {

namespace {

void phase_switch(uint32_t to)
{
	q7_rt_state *st = Q7_RT;
	if (st->phase)
		trace_phase_end(st->phase);
	st->phase = to;
	if (to)
		trace_phase_begin(to);
}

const char *kind_name(const q7_arg_tensor &d) { return d.location == Q7_LOC_SCALAR ? "a scalar" : "a tensor"; }

/* Takes the next input descriptor, which must be a scalar (`scalar`) or a tensor. */
uint32_t next_arg(bool scalar)
{
	q7_rt_state *st = Q7_RT;
	if (st->phase == Q7_PHASE_COMPUTE && st->cursor == st->ninputs)
		q7_fatal(Q7_ERR_ARG_KIND, "kernel %s: argument %u: the op takes more arguments than the %u the invocation carries",
			 op_name(), (unsigned)st->cursor, (unsigned)st->ninputs);
	if (st->phase != Q7_PHASE_MARSHAL)
		q7_fatal(Q7_ERR_ARG_KIND, "kernel %s: an argument was asked for outside marshalling (customop_setup first)",
			 op_name());
	uint32_t i = st->cursor;
	const q7_arg_tensor &d = st->args[i];
	if ((d.location == Q7_LOC_SCALAR) != scalar)
		q7_fatal(Q7_ERR_ARG_KIND, "kernel %s: argument %u: the op takes %s here but the invocation gives %s",
			 op_name(), (unsigned)i, scalar ? "a scalar" : "a tensor", kind_name(d));
	st->cursor = i + 1;
	if (st->cursor == st->ninputs)
		phase_switch(Q7_PHASE_COMPUTE);
	return i;
}

c10::ScalarType torch_dtype(const q7_arg_tensor &d) { return c10::fromIsaDtype(d.dtype); }

/* The descriptor's dims as int64 (rank entries). */
uint32_t dims_of(const q7_arg_tensor &d, int64_t *dims)
{
	for (uint32_t i = 0; i < d.rank; i++)
		dims[i] = desc::dim(d, i);
	return d.rank;
}

at::Tensor bind(const q7_arg_tensor &d, uint8_t arg)
{
	int64_t dims[Q7_MAX_RANK];
	uint32_t rank = dims_of(d, dims);
	Q7PtrType data = d.location == Q7_LOC_HBM ? Q7PtrType::hbm(d.addr) : Q7PtrType::local((const void *)uintptr_t(d.addr));
	at::detail::TensorImpl *impl = at::detail::impl_wrap(torch_dtype(d), c10::IntArrayRef(dims, rank), data, arg);
	q7_trace4(Q7_EV_TENSOR_BIND, arg, uint32_t(d.addr), uint32_t(d.addr >> 32),
		  uint32_t(d.num_elem * desc::dtype_bytes(d.dtype)));
	return at::Tensor(impl);
}

c10::Scalar scalar_of(uint32_t i)
{
	const q7_arg_tensor &d = Q7_RT->args[i];
	if (d.dtype == Q7_SCALAR_DOUBLE) {
		double v;
		__builtin_memcpy(&v, &d.addr, 8);
		return c10::Scalar(v);
	}
	return c10::Scalar(int64_t(d.addr));
}

const q7_arg_tensor &output_desc(const char *who)
{
	q7_rt_state *st = Q7_RT;
	if (!st->has_output)
		q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: the invocation has no OUTPUT descriptor", op_name(), who);
	return st->args[st->nargs - 1];
}

void ensure_rings()
{
	q7_rt_state *st = Q7_RT;
	for (uint32_t q = 0; q < 2; q++) {
		uint32_t base = uint32_t(uintptr_t(&st->ring[q][0]));
		if (Q7_SDMA_RING_BASE(q) != base || Q7_SDMA_RING_SIZE(q) != Q7_SDMA_RING_ENTRIES) {
			Q7_SDMA_RING_BASE(q) = base;
			Q7_SDMA_RING_SIZE(q) = Q7_SDMA_RING_ENTRIES;
			st->sdma_tail[q] = Q7_SDMA_COMPLETED(q);
		}
	}
}

[[noreturn]] void bad_descriptor(uint32_t i, const desc::Check &c)
{
	const char *f = desc::field_name(c.field);
	unsigned long long v = c.value, lim = c.limit;
	switch (c.field) {
	case desc::Field::Output:
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: argument %u: %s: %s", op_name(), (unsigned)i, f,
			 v == 1 ? "an OUTPUT descriptor that is not the last one"
			 : v == 0 ? "the last descriptor is not the OUTPUT one"
				  : "a scalar cannot be the OUTPUT");
	case desc::Field::NumElem:
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: argument %u: %s is %llu but the dims multiply to %llu",
			 op_name(), (unsigned)i, f, v, lim);
	case desc::Field::Location:
	case desc::Field::Flags:
	case desc::Field::Rank:
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: argument %u: %s is 0x%llx (at most 0x%llx allowed)", op_name(),
			 (unsigned)i, f, v, lim);
	case desc::Field::Addr:
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: argument %u: %s 0x%llx: the data runs past the end of its address space",
			 op_name(), (unsigned)i, f, v);
	default:
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: argument %u: %s is 0x%llx (must be 0x%llx)", op_name(),
			 (unsigned)i, f, v, lim);
	}
}

} // namespace

} // namespace rt
} // namespace q7

using namespace q7::rt;
namespace desc = q7::desc;

bool switched_stack;

void customop_setup(bool hasReturn)
{
	boot();
	q7_rt_state *st = Q7_RT;
	st->op = Q7_MBOX_SUB_OPCODE;
	st->phase = 0;
	phase_switch(Q7_PHASE_SETUP);
	ensure_rings();
	uint32_t n = Q7_MBOX_NARGS;
	if (n > Q7_MAX_ARGS)
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: MBOX_NARGS is %u, more than %u descriptors", op_name(),
			 (unsigned)n, (unsigned)Q7_MAX_ARGS);
	if (hasReturn && n == 0)
		q7_fatal(Q7_ERR_BAD_DESCRIPTOR, "kernel %s: the invocation has no descriptors, so no OUTPUT one",
			 op_name());
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *w = reinterpret_cast<uint32_t *>(&st->args[i]);
		for (uint32_t k = 0; k < Q7_ARG_BYTES / 4; k++)
			w[k] = Q7_MBOX_ARG(i, k);
	}
	for (uint32_t i = 0; i < n; i++) {
		const q7_arg_tensor &d = st->args[i];
		desc::Check c = desc::check(d, i + 1 == n, hasReturn);
		if (c.error == Q7_ERR_BAD_DTYPE)
			q7_fatal(Q7_ERR_BAD_DTYPE, "kernel %s: argument %u: dtype 0x%x (%s) is not accepted%s", op_name(),
				 (unsigned)i, (unsigned)d.dtype, desc::dtype_name(d.dtype),
				 d.location == Q7_LOC_SCALAR ? " for a scalar (0xC double or 0x7 int64)" : " by the marshalling gate");
		if (c.error)
			bad_descriptor(i, c);
	}
	st->nargs = n;
	st->cursor = 0;
	st->has_output = hasReturn;
	st->ninputs = hasReturn ? n - 1 : n;
	st->dst_taken = 0;
	phase_switch(Q7_PHASE_MARSHAL);
	if (st->ninputs == 0)
		phase_switch(Q7_PHASE_COMPUTE);
}

at::Tensor customop_next_tensor()
{
	uint32_t i = next_arg(false);
	return bind(Q7_RT->args[i], uint8_t(i));
}

at::Scalar customop_next_scalar() { return scalar_of(next_arg(true)); }
double customop_next_double() { return customop_next_scalar().toDouble(); }
float customop_next_float() { return customop_next_scalar().toFloat(); }

int64_t customop_next_int64()
{
	uint32_t i = next_arg(true);
	c10::Scalar s = scalar_of(i);
	if (s.isFloatingPoint()) {
		double v = s.toDouble();
		if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || double(int64_t(v)) != v)
			q7_fatal(Q7_ERR_ARG_KIND, "kernel %s: argument %u: the op takes an int but the invocation gives %g",
				 op_name(), (unsigned)i, v);
	}
	return s.toLong();
}

int customop_next_int()
{
	uint32_t at = Q7_RT->cursor;
	int64_t v = customop_next_int64();
	if (v < -2147483647 - 1 || v > 2147483647)
		q7_fatal(Q7_ERR_ARG_KIND, "kernel %s: argument %u: %lld does not fit the op's int", op_name(),
			 (unsigned)at, (long long)v);
	return int(v);
}

long long customop_next_long_long() { return customop_next_int64(); }
bool customop_next_bool() { return customop_next_scalar().toBool(); }

at::Tensor get_dst_tensor()
{
	boot();
	q7_rt_state *st = Q7_RT;
	if (st->phase == 0)
		q7_fatal(Q7_ERR_ABORT, "get_dst_tensor() outside a dispatch");
	const q7_arg_tensor &d = output_desc("get_dst_tensor()");
	st->dst_taken = 1;
	return bind(d, Q7_BIND_OUTPUT);
}

// The returned-tensor record (defined last, off the paths every kernel takes).
static void report_returned(const at::detail::TensorImpl *r);

void customop_return_tensor(at::Tensor &output)
{
	q7_rt_state *st = Q7_RT;
	if (st->phase == Q7_PHASE_MARSHAL)
		q7_fatal(Q7_ERR_ARG_KIND,
			 "kernel %s: the invocation carries %u arguments but the op took %u (argument %u and later unused)",
			 op_name(), (unsigned)st->ninputs, (unsigned)st->cursor, (unsigned)st->cursor);
	phase_switch(Q7_PHASE_RETURN);
	const q7_arg_tensor &d = output_desc("customop_return_tensor");
	if (!st->dst_taken) {
		at::detail::TensorImpl *r = output.unsafeGetTensorImpl();
		if (!r) {
			report_returned(r);
			q7_fatal(Q7_ERR_RETURN_MISMATCH, "kernel %s: returned an undefined tensor", op_name());
		}
		c10::ScalarType want = torch_dtype(d);
		if (r->dtype != want) {
			report_returned(r);
			q7_fatal(Q7_ERR_RETURN_MISMATCH, "kernel %s: returned a %s tensor but the output is %s (ISA 0x%x)",
				 op_name(), c10::toString(r->dtype), c10::toString(want), (unsigned)d.dtype);
		}
		if (r->dim != d.rank) {
			report_returned(r);
			q7_fatal(Q7_ERR_RETURN_MISMATCH, "kernel %s: returned a tensor of rank %u but the output has rank %u",
				 op_name(), (unsigned)r->dim, (unsigned)d.rank);
		}
		for (uint32_t i = 0; i < d.rank; i++)
			if (r->sizes[i] != int64_t(desc::dim(d, i))) {
				report_returned(r);
				q7_fatal(Q7_ERR_RETURN_MISMATCH,
					 "kernel %s: returned a tensor whose dim %u is %lld but the output's is %u", op_name(),
					 (unsigned)i, (long long)r->sizes[i], (unsigned)desc::dim(d, i));
			}
		uint64_t bytes = d.num_elem * desc::dtype_bytes(d.dtype);
		bool local = d.location == Q7_LOC_LOCAL;
		if (r->arg != Q7_BIND_OUTPUT && !(r->data.addr == d.addr && bool(r->data.is_local) == local))
			copy(d.addr, local, r->data.addr, r->data.is_local, bytes);
		q7_trace4(Q7_EV_TENSOR_BIND, Q7_BIND_OUTPUT, uint32_t(d.addr), uint32_t(d.addr >> 32), uint32_t(bytes));
	}
}

void customop_cleanup()
{
	phase_switch(Q7_PHASE_CLEANUP);
	sdma_drain();
	__asm__ volatile("memw" ::: "memory");
	Q7_MBOX_RESPONSE = Q7_RESPONSE_DONE;
	phase_switch(0);
}

// The returned-tensor record of `r` (nullptr: undefined) at Q7_RETURNED_ADDR (PLATFORM.md
// "Returned-tensor record"), written before every RETURN_MISMATCH.
__attribute__((noinline)) static void report_returned(const at::detail::TensorImpl *r)
{
	volatile q7_returned *rec = (volatile q7_returned *)uintptr_t(Q7_RETURNED_ADDR);
	uint8_t rank = r && r->dim <= 8 ? r->dim : 0;
	rec->dtype = r ? c10::toIsaDtype(r->dtype) : 0xF;
	rec->rank = rank;
	rec->reserved = 0;
	for (uint32_t i = 0; i < 8; i++)
		rec->dims[i] = i < rank ? r->sizes[i] : 0;
	rec->magic = Q7_RETURNED_MAGIC;
}
