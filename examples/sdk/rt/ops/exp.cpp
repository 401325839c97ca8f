/* exp.cpp - exp (docs/sdk-ops.md): expf of each element, integers computing in Float. */
#include <math.h>
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;

namespace at {

namespace {
float exp_f(float x, float, const Params &) { return expf(x); }
} // namespace

Tensor exp(const Tensor &self) { return float_op("exp", self, float_loop<exp_f>).make(); }
Tensor &exp_out(Tensor &result, const Tensor &self) { return float_op("exp_out", self, float_loop<exp_f>).into(result); }

} // namespace at
