/* pow.cpp - pow (docs/sdk-ops.md "How values are computed"): powf for a float computation
 * dtype, PyTorch's integer power (powi) for an integer one. */
#include <math.h>
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;
using c10::Scalar;

namespace at {

namespace {

float pow_f(float x, float y, const Params &) { return powf(x, y); }

void set_pow_loop(Plan &pl) { pl.set_loop(pl.float_compute() ? float_loop<pow_f> : int_loop<pow_i>); }

Plan pow_tt(const char *op, const Tensor &self, const Tensor &exponent)
{
	Plan pl(op, Arg::tensor("self", self), Arg::tensor("exponent", exponent), 0);
	set_pow_loop(pl);
	return pl;
}

/* pow(Tensor, Scalar): PyTorch refuses a negative integer exponent of an integer tensor, takes
 * an integer exponent in the computation dtype (Scalar::to<T>(), an overflow is an error) and
 * requires the result of the _out form to have the computation dtype. A float computation
 * takes the exponent as the float nearest to it. */
Plan pow_ts(const char *op, const Tensor &self, const Scalar &exponent)
{
	Plan pl(op, Arg::tensor("self", self), Arg::scalar("exponent", exponent), EXACT_OUT | SCALAR_AS_FLOAT);
	if (!pl.float_compute()) {
		char s[160], e[64];
		if (exponent.toLong() < 0)
			pl.fail("Integers to negative integer powers are not allowed (%s, %s)", pl.describe(0, s, sizeof s),
				pl.describe(1, e, sizeof e));
		pl.set_scalar(1, pl.checked_slot("exponent", exponent, pl.compute()));
	}
	set_pow_loop(pl);
	return pl;
}

/* pow(Scalar, Tensor): the base converted to the computation dtype as a C++ cast. */
Plan pow_st(const char *op, const Scalar &self, const Tensor &exponent)
{
	Plan pl(op, Arg::scalar("self", self), Arg::tensor("exponent", exponent), 0);
	set_pow_loop(pl);
	return pl;
}

} // namespace

Tensor pow(const Tensor &self, const Tensor &exponent) { return pow_tt("pow", self, exponent).make(); }
Tensor pow(const Tensor &self, const Scalar &exponent) { return pow_ts("pow", self, exponent).make(); }
Tensor pow(const Scalar &self, const Tensor &exponent) { return pow_st("pow", self, exponent).make(); }
Tensor &pow_out(Tensor &result, const Tensor &self, const Tensor &exponent)
{
	return pow_tt("pow_out", self, exponent).into(result);
}
Tensor &pow_out(Tensor &result, const Tensor &self, const Scalar &exponent)
{
	return pow_ts("pow_out", self, exponent).into(result);
}
Tensor &pow_out(Tensor &result, const Scalar &self, const Tensor &exponent)
{
	return pow_st("pow_out", self, exponent).into(result);
}

} // namespace at
