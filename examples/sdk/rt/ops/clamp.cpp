/* clamp.cpp - clamp(self, min, max) (docs/sdk-ops.md "The ops"): PyTorch's promotion over self and
 * both bounds; the bounds converted to the computation dtype as Scalar::to<T>() converts them;
 * a NaN bound makes every element NaN. */
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;
using c10::Scalar;

namespace at {

namespace {

bool is_nan(const Scalar &s) { return s.isFloatingPoint() && __builtin_isnan(s.toDouble()); }

Plan clamp_plan(const char *op, const Tensor &self, const Scalar &min, const Scalar &max)
{
	Plan pl(op, Arg::tensor("self", self), EXACT_OUT);
	ScalarType t = pl.compute();
	if (!c10::isFloatingType(t) && (min.isFloatingPoint() || max.isFloatingPoint()))
		t = ScalarType::Float;
	pl.set_compute(t);
	if (!is_nan(min) && !is_nan(max)) {
		Params p{pl.checked_slot("min", min, t), pl.checked_slot("max", max, t)};
		pl.set_loop(pl.float_compute() ? float_loop<clamp_f> : int_loop<clamp_i>, p);
	}
	return pl;
}

Tensor &nan_or_run(const Plan &pl, const Scalar &min, const Scalar &max, Tensor &result)
{
	if (is_nan(min) || is_nan(max))
		result.fill_(Scalar(__builtin_nan("")));
	else
		pl.run(result);
	return result;
}

} // namespace

Tensor clamp(const Tensor &self, const Scalar &min, const Scalar &max)
{
	Plan pl = clamp_plan("clamp", self, min, max);
	Tensor r = pl.new_result();
	return nan_or_run(pl, min, max, r);
}

Tensor &clamp_out(Tensor &result, const Tensor &self, const Scalar &min, const Scalar &max)
{
	Plan pl = clamp_plan("clamp_out", self, min, max);
	pl.check_out(result);
	return nan_or_run(pl, min, max, result);
}

} // namespace at
