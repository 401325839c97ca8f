/* arith.cpp - add, sub, mul, div (docs/sdk-ops.md "The ops"). */
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;
using c10::Scalar;

namespace at {

namespace {

/* add and sub: self + alpha * other with alpha negated for sub (PyTorch's sub is add with
 * -alpha). PyTorch's alpha_check, then alpha in the computation's arithmetic (float for the
 * float dtypes), converted as Scalar::to<T>() does (an overflow is an error). */
Plan add_plan(const char *op, const Tensor &self, Arg other, const Scalar &alpha, bool negate)
{
	Plan pl(op, Arg::tensor("self", self), other, SCALAR_AS_FLOAT);
	char v[48];
	if (alpha.isBoolean())
		pl.fail("Boolean alpha only supported for Boolean results (alpha %s)", scalar_text(alpha, v, sizeof v));
	if (!pl.float_compute() && alpha.isFloatingPoint())
		pl.fail("For integral input tensors, argument alpha must not be a floating point number (alpha %s, "
			"computing in %s)",
			scalar_text(alpha, v, sizeof v), c10::toString(pl.compute()));
	Scalar a = negate ? -alpha : alpha;
	if (pl.float_compute()) {
		uint32_t s = pl.checked_slot("alpha", a, ScalarType::Float);
		if (s == bits(1.0f))
			pl.set_loop(float_loop<add_f>);
		else if (s == bits(-1.0f))
			pl.set_loop(float_loop<sub_f>);
		else
			pl.set_loop(float_loop<add_alpha_f>, Params{s, 0});
	} else {
		uint32_t s = pl.checked_slot("alpha", a, pl.compute());
		if (s == 1)
			pl.set_loop(int_loop<add_i>);
		else if (s == uint32_t(-1))
			pl.set_loop(int_loop<sub_i>);
		else
			pl.set_loop(int_loop<add_alpha_i>, Params{s, 0});
	}
	return pl;
}

Plan mul_plan(const char *op, const Tensor &self, Arg other)
{
	Plan pl(op, Arg::tensor("self", self), other, SCALAR_AS_FLOAT);
	pl.set_loop(pl.float_compute() ? float_loop<mul_f> : int_loop<mul_i>);
	return pl;
}

Plan div_plan(const char *op, const Tensor &self, Arg other)
{
	Plan pl(op, Arg::tensor("self", self), other, SCALAR_AS_FLOAT | FLOAT_OP);
	pl.set_loop(float_loop<div_f>);
	return pl;
}

} // namespace

Tensor add(const Tensor &self, const Tensor &other, const Scalar &alpha)
{
	return add_plan("add", self, Arg::tensor("other", other), alpha, false).make();
}
Tensor add(const Tensor &self, const Scalar &other, const Scalar &alpha)
{
	return add_plan("add", self, Arg::scalar("other", other), alpha, false).make();
}
Tensor &add_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha)
{
	return add_plan("add_out", self, Arg::tensor("other", other), alpha, false).into(result);
}
Tensor &add_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha)
{
	return add_plan("add_out", self, Arg::scalar("other", other), alpha, false).into(result);
}

Tensor sub(const Tensor &self, const Tensor &other, const Scalar &alpha)
{
	return add_plan("sub", self, Arg::tensor("other", other), alpha, true).make();
}
Tensor sub(const Tensor &self, const Scalar &other, const Scalar &alpha)
{
	return add_plan("sub", self, Arg::scalar("other", other), alpha, true).make();
}
Tensor &sub_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha)
{
	return add_plan("sub_out", self, Arg::tensor("other", other), alpha, true).into(result);
}
Tensor &sub_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha)
{
	return add_plan("sub_out", self, Arg::scalar("other", other), alpha, true).into(result);
}

Tensor mul(const Tensor &self, const Tensor &other) { return mul_plan("mul", self, Arg::tensor("other", other)).make(); }
Tensor mul(const Tensor &self, const Scalar &other) { return mul_plan("mul", self, Arg::scalar("other", other)).make(); }
Tensor &mul_out(Tensor &result, const Tensor &self, const Tensor &other)
{
	return mul_plan("mul_out", self, Arg::tensor("other", other)).into(result);
}
Tensor &mul_out(Tensor &result, const Tensor &self, const Scalar &other)
{
	return mul_plan("mul_out", self, Arg::scalar("other", other)).into(result);
}

Tensor div(const Tensor &self, const Tensor &other) { return div_plan("div", self, Arg::tensor("other", other)).make(); }
Tensor div(const Tensor &self, const Scalar &other) { return div_plan("div", self, Arg::scalar("other", other)).make(); }
Tensor &div_out(Tensor &result, const Tensor &self, const Tensor &other)
{
	return div_plan("div_out", self, Arg::tensor("other", other)).into(result);
}
Tensor &div_out(Tensor &result, const Tensor &self, const Scalar &other)
{
	return div_plan("div_out", self, Arg::scalar("other", other)).into(result);
}

} // namespace at
