/* elementwise.h - the machinery of the element-wise ops (internal to examples/sdk/rt/ops): a
 * Plan is one op's operands, its computation dtype (PyTorch's type promotion), its result and
 * its loop (kernels.h); Plan::run streams the operands through DATARAM chunk by chunk with SDMA
 * and writes the result back the same way. docs/sdk-ops.md states the rules this implements. */
#ifndef Q7_OPS_ELEMENTWISE_H
#define Q7_OPS_ELEMENTWISE_H

#include <stdint.h>
#include <ATen/ATen.h>

#include "kernels.h"

namespace q7 {
namespace ops {

/* One operand: a tensor or a scalar, with the name messages give it ("self", "other"). */
struct Arg {
	const char *name;
	const at::Tensor *t;
	const c10::Scalar *s;

	static Arg tensor(const char *name, const at::Tensor &t) { return Arg{name, &t, nullptr}; }
	static Arg scalar(const char *name, const c10::Scalar &s) { return Arg{name, nullptr, &s}; }
};

/* How an op derives its computation dtype and treats its operands and result. */
enum Flags : uint8_t {
	/* Integer operands compute in Float (div, sin, exp, ...: PyTorch's float ops). */
	FLOAT_OP = 1,
	/* A float computation dtype is an error (bitwise_*). */
	INTEGER_ONLY = 2,
	/* A scalar operand enters a float computation as the float nearest to it, not rounded to
	 * Half or BFloat16 first (add, sub, mul, div: PyTorch's opmath for a CPU scalar). Otherwise
	 * a scalar operand is converted to the computation dtype as a C++ cast. */
	SCALAR_AS_FLOAT = 4,
	/* The result of the _out form must have exactly the computation dtype (PyTorch's unary ops,
	 * clamp, pow(Tensor, Scalar)); otherwise any dtype the computation dtype can be cast to. */
	EXACT_OUT = 8,
	/* The computation dtype is self's: no promotion (abs, ceil, floor, bitwise_not). */
	KEEP_DTYPE = 16,
};

class Plan {
public:
	/* A unary op of `self`, or a binary op of `a` and `b` (at least one a tensor): checks the
	 * dtypes (no Long) and shapes (equal, no broadcasting) and derives the computation dtype;
	 * a runtime error naming `op` otherwise. */
	Plan(const char *op, Arg self, uint8_t flags);
	Plan(const char *op, Arg a, Arg b, uint8_t flags);

	/* Replaces the computation dtype (clamp's promotion over two scalars). */
	void set_compute(c10::ScalarType t) { compute_ = t; }
	/* Replaces the slot scalar operand `i` enters the loop as (by default the float nearest to
	 * it for SCALAR_AS_FLOAT in a float computation, else cast_slot to the computation dtype). */
	void set_scalar(int i, uint32_t slot) { scalar_[i] = slot; }
	c10::ScalarType compute() const { return compute_; }
	bool float_compute() const { return float_slots(compute_); }
	const Arg &arg(int i) const { return args_[i]; }
	const char *op() const { return op_; }

	/* The loop and its scalars. No loop: the op is the conversion alone (ceil of an integer). */
	void set_loop(SlotFn fn, Params p = Params{0, 0})
	{
		fn_ = fn;
		p_ = p;
	}

	/* A new result from this core's HBM heap: the tensor operand's shape, the computation
	 * dtype. */
	at::Tensor new_result() const;
	/* Checks `result` of the _out form: defined, the operands' shape, a dtype the computation
	 * dtype may be stored as (EXACT_OUT: exactly it). A runtime error naming it otherwise. */
	void check_out(const at::Tensor &result) const;
	/* Computes the op into `result` (checked by new_result or check_out). */
	void run(const at::Tensor &result) const;
	/* The X form: a new result, computed. */
	at::Tensor make() const
	{
		at::Tensor r = new_result();
		run(r);
		return r;
	}
	/* The X_out form: `result` checked, computed, returned. */
	at::Tensor &into(at::Tensor &result) const
	{
		check_out(result);
		run(result);
		return result;
	}

	/* Stops the kernel: "kernel K: OP: <message>". */
	[[noreturn]] void fail(const char *fmt, ...) const __attribute__((format(printf, 2, 3)));

	/* "self Float [2, 3]", "other 0.5" into `buf`: operand `i`. */
	const char *describe(int i, char *buf, uint32_t n) const;

	/* The slot of scalar `s` in computation dtype `t` as PyTorch's Scalar::to<T>() converts it:
	 * a runtime error naming `what` when the value overflows `t` (c10's overflow rule:
	 * infinities and NaN convert to a float dtype; an unsigned dtype takes negative values down
	 * to -max, wrapping). */
	uint32_t checked_slot(const char *what, const c10::Scalar &s, c10::ScalarType t) const;

private:
	const char *op_;
	Arg args_[2];
	uint8_t nargs_;
	uint8_t flags_;
	c10::ScalarType compute_;
	SlotFn fn_;
	Params p_;
	uint32_t scalar_[2];

	void derive();
	const at::detail::TensorImpl *shape_source() const;
};

/* A float op of one tensor (sin, exp, ...): integers compute in Float; `fn` over float slots. */
inline Plan float_op(const char *op, const at::Tensor &self, SlotFn fn)
{
	Plan pl(op, Arg::tensor("self", self), FLOAT_OP);
	pl.set_loop(fn);
	return pl;
}

/* PyTorch's promote_types over the seven element-wise dtypes (and Long). */
c10::ScalarType promote(c10::ScalarType a, c10::ScalarType b);
/* The slot of scalar `s` converted to dtype `t` as a C++ cast (integers wrap, floats round to
 * nearest even through float). */
uint32_t cast_slot(const c10::Scalar &s, c10::ScalarType t);
/* The float nearest to `s`, as a slot. */
uint32_t float_slot(const c10::Scalar &s);
/* `s` as text: "%g" for a double, "%lld" for an integer, "true"/"false". */
const char *scalar_text(const c10::Scalar &s, char *buf, uint32_t n);

} // namespace ops
} // namespace q7

#endif
