/* log.cpp - log, log2, log10 (docs/sdk-ops.md): logf, log2f, log10f of each element, integers
 * computing in Float. */
#include <math.h>
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;

namespace at {

namespace {
float log_f(float x, float, const Params &) { return logf(x); }
float log2_f(float x, float, const Params &) { return log2f(x); }
float log10_f(float x, float, const Params &) { return log10f(x); }
} // namespace

Tensor log(const Tensor &self) { return float_op("log", self, float_loop<log_f>).make(); }
Tensor &log_out(Tensor &result, const Tensor &self) { return float_op("log_out", self, float_loop<log_f>).into(result); }
Tensor log2(const Tensor &self) { return float_op("log2", self, float_loop<log2_f>).make(); }
Tensor &log2_out(Tensor &result, const Tensor &self) { return float_op("log2_out", self, float_loop<log2_f>).into(result); }
Tensor log10(const Tensor &self) { return float_op("log10", self, float_loop<log10_f>).make(); }
Tensor &log10_out(Tensor &result, const Tensor &self)
{
	return float_op("log10_out", self, float_loop<log10_f>).into(result);
}

} // namespace at
