/* unary.cpp - abs, ceil, floor, bitwise_not (docs/sdk-ops.md "The ops"): the result has self's
 * dtype, and so must the result of the _out form. */
#include <math.h>
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;

namespace at {

namespace {

float ceil_f(float x, float, const Params &) { return ceilf(x); }
float floor_f(float x, float, const Params &) { return floorf(x); }

/* `float_fn` for Float, Half and BFloat16, `int_fn` for the integers (none: a copy). */
Plan same_dtype(const char *op, const Tensor &self, SlotFn float_fn, SlotFn int_fn, uint8_t flags = 0)
{
	Plan pl(op, Arg::tensor("self", self), KEEP_DTYPE | EXACT_OUT | flags);
	pl.set_loop(pl.float_compute() ? float_fn : int_fn);
	return pl;
}

Plan abs_plan(const char *op, const Tensor &self) { return same_dtype(op, self, float_loop<abs_f>, int_loop<abs_i>); }
Plan ceil_plan(const char *op, const Tensor &self) { return same_dtype(op, self, float_loop<ceil_f>, nullptr); }
Plan floor_plan(const char *op, const Tensor &self) { return same_dtype(op, self, float_loop<floor_f>, nullptr); }
Plan not_plan(const char *op, const Tensor &self) { return same_dtype(op, self, nullptr, int_loop<not_i>, INTEGER_ONLY); }

} // namespace

Tensor abs(const Tensor &self) { return abs_plan("abs", self).make(); }
Tensor &abs_out(Tensor &result, const Tensor &self) { return abs_plan("abs_out", self).into(result); }
Tensor ceil(const Tensor &self) { return ceil_plan("ceil", self).make(); }
Tensor &ceil_out(Tensor &result, const Tensor &self) { return ceil_plan("ceil_out", self).into(result); }
Tensor floor(const Tensor &self) { return floor_plan("floor", self).make(); }
Tensor &floor_out(Tensor &result, const Tensor &self) { return floor_plan("floor_out", self).into(result); }
Tensor bitwise_not(const Tensor &self) { return not_plan("bitwise_not", self).make(); }
Tensor &bitwise_not_out(Tensor &result, const Tensor &self) { return not_plan("bitwise_not_out", self).into(result); }

} // namespace at
