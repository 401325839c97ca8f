/* engine.cpp - the element-wise ops' machinery (elementwise.h): operand checks, PyTorch's type
 * promotion, result checks, scalar conversions, and the chunked SDMA pipeline every op runs
 * through (docs/sdk-ops.md "How an op runs"). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ATen/ATen.h>
#include <q7/customop_abi.h>
#include <q7/runtime.h>

#include "../customop/rt.h"
#include "elementwise.h"

using at::Tensor;
using at::detail::TensorImpl;
using c10::Scalar;
using c10::ScalarType;

namespace q7 {
namespace ops {

namespace {

/* Elements per chunk (4-byte slots per buffer) and buffer sets in flight: chunk c is computed
 * in set c % SETS while chunk c + 1 is read into the next set and chunk c - 1 is written from
 * the one before. */
constexpr uint32_t CHUNK = 512;
constexpr uint32_t MIN_CHUNK = 16;
constexpr uint32_t SETS = 3;

const TensorImpl *impl_of(const Tensor &t, const char *op)
{
	const TensorImpl *i = t.unsafeGetTensorImpl();
	if (!i)
		at::detail::undefined_tensor(op);
	return i;
}

/* "[2, 3]" */
void shape_text(const TensorImpl *t, char *buf, uint32_t n)
{
	uint32_t len = 0;
	len += uint32_t(snprintf(buf, n, "["));
	for (uint32_t d = 0; d < t->dim && len < n; d++)
		len += uint32_t(snprintf(buf + len, n - len, d ? ", %lld" : "%lld", (long long)t->sizes[d]));
	if (len < n)
		snprintf(buf + len, n - len, "]");
}

void tensor_text(const char *name, const TensorImpl *t, char *buf, uint32_t n)
{
	char shape[112];
	shape_text(t, shape, sizeof shape);
	snprintf(buf, n, "%s %s %s", name, c10::toString(t->dtype), shape);
}

bool same_shape(const TensorImpl *a, const TensorImpl *b)
{
	if (a->dim != b->dim)
		return false;
	for (uint32_t d = 0; d < a->dim; d++)
		if (a->sizes[d] != b->sizes[d])
			return false;
	return true;
}

bool op_dtype(ScalarType t) { return c10::isValidScalarType(t) && t != ScalarType::Long; }

/* PyTorch's result_type of a tensor of dtype `t` and a scalar: the scalar's category wins only
 * over a lower one (an integer tensor and a double give Float, the default float dtype). */
ScalarType with_scalar(ScalarType t, const Scalar &s)
{
	if (c10::isFloatingType(t) || !s.isFloatingPoint())
		return t;
	return ScalarType::Float;
}

} // namespace

ScalarType promote(ScalarType a, ScalarType b)
{
	if (a == b)
		return a;
	bool fa = c10::isFloatingType(a), fb = c10::isFloatingType(b);
	if (fa && fb)
		return ScalarType::Float; /* Half with BFloat16, either with Float */
	if (fa)
		return a;
	if (fb)
		return b;
	if ((a == ScalarType::Byte && b == ScalarType::Char) || (a == ScalarType::Char && b == ScalarType::Byte))
		return ScalarType::Short;
	if (a == ScalarType::Byte)
		return b;
	if (b == ScalarType::Byte)
		return a;
	return c10::elementSize(a) > c10::elementSize(b) ? a : b;
}

uint32_t float_slot(const Scalar &s) { return bits(s.toFloat()); }

uint32_t cast_slot(const Scalar &s, ScalarType t)
{
	switch (t) {
	case ScalarType::Float:
		return float_slot(s);
	case ScalarType::Half:
		return bits(float(s.toHalf()));
	case ScalarType::BFloat16:
		return bits(float(s.toBFloat16()));
	case ScalarType::Int:
		return uint32_t(s.toInt());
	case ScalarType::Short:
		return uint32_t(int32_t(s.toShort()));
	case ScalarType::Char:
		return uint32_t(int32_t(s.toChar()));
	default:
		return uint32_t(s.toByte());
	}
}

const char *scalar_text(const Scalar &s, char *buf, uint32_t n)
{
	if (s.isBoolean())
		snprintf(buf, n, "%s", s.toBool() ? "true" : "false");
	else if (s.isFloatingPoint())
		snprintf(buf, n, "%g", s.toDouble());
	else
		snprintf(buf, n, "%lld", (long long)s.toLong());
	return buf;
}

Plan::Plan(const char *op, Arg self, uint8_t flags)
	: op_(op), args_{self, Arg{nullptr, nullptr, nullptr}}, nargs_(1), flags_(flags), compute_(ScalarType::Undefined),
	  fn_(nullptr), p_{0, 0}, scalar_{0, 0}
{
	derive();
}

Plan::Plan(const char *op, Arg a, Arg b, uint8_t flags)
	: op_(op), args_{a, b}, nargs_(2), flags_(flags), compute_(ScalarType::Undefined), fn_(nullptr), p_{0, 0}, scalar_{0, 0}
{
	derive();
}

void Plan::fail(const char *fmt, ...) const
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	q7_fatal(Q7_ERR_ABORT, "kernel %s: %s: %s", rt::op_name(), op_, what);
}

const char *Plan::describe(int i, char *buf, uint32_t n) const
{
	const Arg &a = args_[i];
	if (a.t) {
		tensor_text(a.name, a.t->unsafeGetTensorImpl(), buf, n);
	} else {
		char v[48];
		snprintf(buf, n, "%s %s", a.name, scalar_text(*a.s, v, sizeof v));
	}
	return buf;
}

const TensorImpl *Plan::shape_source() const
{
	return args_[0].t ? args_[0].t->unsafeGetTensorImpl() : args_[1].t->unsafeGetTensorImpl();
}

void Plan::derive()
{
	char d0[160], d1[160];
	for (int i = 0; i < nargs_; i++) {
		if (!args_[i].t)
			continue;
		const TensorImpl *t = impl_of(*args_[i].t, op_);
		if (!op_dtype(t->dtype))
			fail("%s: element-wise ops take Float, BFloat16, Half, Int, Short, Char and Byte tensors",
			     describe(i, d0, sizeof d0));
	}
	const TensorImpl *a = args_[0].t ? args_[0].t->unsafeGetTensorImpl() : nullptr;
	const TensorImpl *b = nargs_ == 2 && args_[1].t ? args_[1].t->unsafeGetTensorImpl() : nullptr;
	if (a && b && !same_shape(a, b))
		fail("%s and %s differ in shape: element-wise ops do not broadcast", describe(0, d0, sizeof d0),
		     describe(1, d1, sizeof d1));
	if ((flags_ & KEEP_DTYPE) || nargs_ == 1)
		compute_ = a->dtype;
	else if (a && b)
		compute_ = promote(a->dtype, b->dtype);
	else if (a)
		compute_ = with_scalar(a->dtype, *args_[1].s);
	else
		compute_ = with_scalar(b->dtype, *args_[0].s);
	if ((flags_ & FLOAT_OP) && !c10::isFloatingType(compute_))
		compute_ = ScalarType::Float;
	if ((flags_ & INTEGER_ONLY) && c10::isFloatingType(compute_)) {
		if (nargs_ == 1)
			fail("%s: bitwise ops take integer dtypes only", describe(0, d0, sizeof d0));
		fail("%s and %s compute in %s: bitwise ops take integer dtypes only", describe(0, d0, sizeof d0),
		     describe(1, d1, sizeof d1), c10::toString(compute_));
	}
	for (int i = 0; i < nargs_; i++)
		if (args_[i].s)
			scalar_[i] = (flags_ & SCALAR_AS_FLOAT) && c10::isFloatingType(compute_)
					     ? float_slot(*args_[i].s)
					     : cast_slot(*args_[i].s, compute_);
}

Tensor Plan::new_result() const
{
	const TensorImpl *s = shape_source();
	return Tensor(at::detail::impl_alloc(compute_, c10::IntArrayRef(s->sizes, s->dim)));
}

void Plan::check_out(const Tensor &result) const
{
	const TensorImpl *r = impl_of(result, op_);
	const TensorImpl *s = shape_source();
	char rd[160], sd[160];
	tensor_text("result", r, rd, sizeof rd);
	if (!op_dtype(r->dtype))
		fail("%s: element-wise ops take Float, BFloat16, Half, Int, Short, Char and Byte tensors", rd);
	if (!same_shape(r, s))
		fail("%s differs in shape from %s: element-wise ops do not broadcast or resize their result", rd,
		     describe(args_[0].t ? 0 : 1, sd, sizeof sd));
	if ((flags_ & EXACT_OUT) && r->dtype != compute_)
		fail("found dtype %s but expected %s (%s)", c10::toString(r->dtype), c10::toString(compute_), rd);
	if (c10::isFloatingType(compute_) && !c10::isFloatingType(r->dtype))
		fail("result type %s can't be cast to the desired output type %s (%s)", c10::toString(compute_),
		     c10::toString(r->dtype), rd);
}

uint32_t Plan::checked_slot(const char *what, const Scalar &s, ScalarType t) const
{
	bool over;
	if (c10::isFloatingType(t)) {
		double max = t == ScalarType::Half ? 65504.0 : t == ScalarType::BFloat16 ? 3.3895313892515355e38 : 3.4028234663852886e38;
		double v = s.toDouble();
		over = !__builtin_isinf(v) && !__builtin_isnan(v) && (v < -max || v > max);
	} else if (s.isFloatingPoint()) {
		double v = s.toDouble();
		double lo = t == ScalarType::Byte ? 0.0 : t == ScalarType::Char ? -128.0 : t == ScalarType::Short ? -32768.0 : -2147483648.0;
		double hi = t == ScalarType::Byte ? 255.0 : t == ScalarType::Char ? 127.0 : t == ScalarType::Short ? 32767.0 : 2147483647.0;
		over = __builtin_isnan(v) || v < lo || v > hi;
	} else {
		int64_t v = s.toLong();
		if (t == ScalarType::Byte)
			over = v > 255 || v < -255;
		else {
			int64_t hi = t == ScalarType::Char ? 127 : t == ScalarType::Short ? 32767 : 2147483647;
			over = v > hi || v < -hi - 1;
		}
	}
	if (over) {
		char v[48];
		fail("%s %s cannot be converted to %s without overflow", what, scalar_text(s, v, sizeof v), c10::toString(t));
	}
	return cast_slot(s, t);
}

namespace {

/* Moves `bytes` of a tensor's storage at byte `offset` into DATARAM `buf` (SDMA from HBM,
 * memcpy from core-local storage): the M2S count to wait for, 0 when done already. */
uint32_t read_in(const TensorImpl *t, uint64_t offset, void *buf, uint32_t bytes)
{
	if (t->data.is_local) {
		memcpy(buf, (const void *)uintptr_t(t->data.addr + offset), bytes);
		return 0;
	}
	return rt::sdma_push(Q7_SDMA_M2S, t->data.addr + offset, uint32_t(uintptr_t(buf)), bytes);
}

uint32_t write_out(const TensorImpl *t, uint64_t offset, const void *buf, uint32_t bytes)
{
	if (t->data.is_local) {
		memcpy((void *)uintptr_t(t->data.addr + offset), buf, bytes);
		return 0;
	}
	return rt::sdma_push(Q7_SDMA_S2M, t->data.addr + offset, uint32_t(uintptr_t(buf)), bytes);
}

void wait(uint32_t q, uint32_t count)
{
	if (count)
		rt::sdma_wait(q, count);
}

} // namespace

void Plan::run(const Tensor &result) const
{
	rt::boot();
	const TensorImpl *out = result.unsafeGetTensorImpl();
	const TensorImpl *in[2] = {nullptr, nullptr};
	uint32_t streams = 0;
	for (int i = 0; i < nargs_; i++)
		if (args_[i].t) {
			in[i] = args_[i].t->unsafeGetTensorImpl();
			// The tensor's accessor bookkeeping is runtime state beside its data (as a const
			// Tensor's tcm_accessor() opens one too).
			at::detail::accessor_open(const_cast<TensorImpl *>(in[i]), ScalarType::Undefined, 0,
						  Q7_ACC_TCM, false);
			streams++;
		}
	at::detail::accessor_open(const_cast<TensorImpl *>(out), ScalarType::Undefined, 0, Q7_ACC_TCM,
				  true);
	uint64_t total = uint64_t(out->numel);
	if (total == 0)
		return;

	/* Buffers: SETS sets of one 4-byte slot buffer per streamed operand, and one of the scalar
	 * operand's slots, from the DATARAM heap; smaller chunks when it is short. */
	bool konst = nargs_ == 2 && streams == 1;
	uint32_t chunk = CHUNK;
	uint8_t *mem = nullptr;
	uint32_t bytes = 0;
	for (;;) {
		bytes = (SETS * streams + (konst ? 1 : 0)) * chunk * 4;
		mem = static_cast<uint8_t *>(neuron_dataram_allocate(bytes, 64));
		if (mem || chunk == MIN_CHUNK)
			break;
		chunk /= 2;
	}
	if (!mem)
		q7_fatal(Q7_ERR_OUT_OF_MEMORY, "kernel %s: %s: the DATARAM heap cannot hold the op's %u bytes of buffers",
			 rt::op_name(), op_, (unsigned)bytes);
	uint32_t stride = chunk * 4;
	uint8_t *konst_buf = mem + SETS * streams * stride;
	if (konst) {
		u32a *k = reinterpret_cast<u32a *>(konst_buf);
		uint32_t v = args_[0].t ? scalar_[1] : scalar_[0];
		for (uint32_t i = 0; i < chunk; i++)
			k[i] = v;
	}
	/* Operand i's buffer in set s: its stream's, or the scalar's. */
	auto buf = [&](uint32_t s, int i) -> uint8_t * {
		if (!in[i])
			return konst_buf;
		uint32_t k = (i == 1 && in[0]) ? 1 : 0;
		return mem + (s * streams + k) * stride;
	};
	int dst = in[0] ? 0 : 1;
	bool fl = float_slots(compute_);
	ScalarType odt = out->dtype;
	uint32_t osize = uint32_t(c10::elementSize(odt));

	/* Chunk c covers elements [c * chunk, + n) and uses set c % SETS; both are tracked
	 * incrementally (no 64-bit division per chunk). */
	uint32_t reads[SETS] = {0, 0, 0}, writes[SETS] = {0, 0, 0};
	auto issue_read = [&](uint64_t first, uint32_t s) {
		uint32_t n = uint32_t(total - first < chunk ? total - first : chunk);
		for (int i = 0; i < nargs_; i++)
			if (in[i]) {
				uint32_t es = uint32_t(c10::elementSize(in[i]->dtype));
				uint32_t r = read_in(in[i], first * es, buf(s, i), n * es);
				if (r)
					reads[s] = r;
			}
	};
	issue_read(0, 0);
	uint32_t s = 0;
	for (uint64_t first = 0; first < total; first += chunk) {
		uint32_t ns = s + 1 == SETS ? 0 : s + 1;
		if (total - first > chunk) {
			wait(Q7_SDMA_S2M, writes[ns]); /* the result of the chunk SETS - 1 back has left set ns */
			writes[ns] = 0;
			issue_read(first + chunk, ns);
		}
		wait(Q7_SDMA_M2S, reads[s]);
		reads[s] = 0;
		uint32_t n = uint32_t(total - first < chunk ? total - first : chunk);
		for (int i = 0; i < nargs_; i++) {
			if (!in[i])
				continue;
			ScalarType t = in[i]->dtype;
			load(t, fl, n, buf(s, i));
			if (fl && !c10::isFloatingType(t))
				round_to(compute_, n, buf(s, i));
		}
		uint8_t *d = buf(s, dst);
		if (fn_)
			fn_(n, d, buf(s, 0), nargs_ == 2 ? buf(s, 1) : buf(s, 0), p_);
		if (odt != compute_)
			round_to(compute_, n, d);
		if (!store(fl, odt, n, d))
			fail("internal: %s slots cannot be stored as %s", c10::toString(compute_), c10::toString(odt));
		writes[s] = write_out(out, first * osize, d, n * osize);
		s = ns;
	}
	for (uint32_t k = 0; k < SETS; k++)
		wait(Q7_SDMA_S2M, writes[k]);
	neuron_dataram_free(mem);
}

} // namespace ops
} // namespace q7
