/* trig.cpp - sin, cos, tan (docs/sdk-ops.md): sinf, cosf, tanf of each element, integers
 * computing in Float. */
#include <math.h>
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;

namespace at {

namespace {
float sin_f(float x, float, const Params &) { return sinf(x); }
float cos_f(float x, float, const Params &) { return cosf(x); }
float tan_f(float x, float, const Params &) { return tanf(x); }
} // namespace

Tensor sin(const Tensor &self) { return float_op("sin", self, float_loop<sin_f>).make(); }
Tensor &sin_out(Tensor &result, const Tensor &self) { return float_op("sin_out", self, float_loop<sin_f>).into(result); }
Tensor cos(const Tensor &self) { return float_op("cos", self, float_loop<cos_f>).make(); }
Tensor &cos_out(Tensor &result, const Tensor &self) { return float_op("cos_out", self, float_loop<cos_f>).into(result); }
Tensor tan(const Tensor &self) { return float_op("tan", self, float_loop<tan_f>).make(); }
Tensor &tan_out(Tensor &result, const Tensor &self) { return float_op("tan_out", self, float_loop<tan_f>).into(result); }

} // namespace at
