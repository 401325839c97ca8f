// ATen/ops/elementwise.h - PyTorch's element-wise tensor ops. Each comes as `X(...)`, which
// returns a new tensor from this core's HBM heap, and `X_out(result, ...)`, which writes
// `result` and returns it. Tensors of Float, BFloat16, Half, Int, Short, Char or Byte; shapes
// must be equal (no broadcasting); the result's dtype follows PyTorch's type promotion. The
// rules, the errors and how the data moves (SDMA through DATARAM, in chunks): docs/sdk-ops.md.
// The calling core computes the whole op, in a multicore library too.
#ifndef Q7_ATEN_OPS_ELEMENTWISE_H
#define Q7_ATEN_OPS_ELEMENTWISE_H

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

namespace at {

// ---- unary ----

// |self|; integers wrap (abs of -128 as Char is -128).
Tensor abs(const Tensor &self);
Tensor &abs_out(Tensor &result, const Tensor &self);
// Rounded up / down; an integer tensor is copied.
Tensor ceil(const Tensor &self);
Tensor &ceil_out(Tensor &result, const Tensor &self);
Tensor floor(const Tensor &self);
Tensor &floor_out(Tensor &result, const Tensor &self);
// sinf, cosf, tanf, logf, log2f, log10f, expf of each element; integers compute in Float.
Tensor sin(const Tensor &self);
Tensor &sin_out(Tensor &result, const Tensor &self);
Tensor cos(const Tensor &self);
Tensor &cos_out(Tensor &result, const Tensor &self);
Tensor tan(const Tensor &self);
Tensor &tan_out(Tensor &result, const Tensor &self);
Tensor log(const Tensor &self);
Tensor &log_out(Tensor &result, const Tensor &self);
Tensor log2(const Tensor &self);
Tensor &log2_out(Tensor &result, const Tensor &self);
Tensor log10(const Tensor &self);
Tensor &log10_out(Tensor &result, const Tensor &self);
Tensor exp(const Tensor &self);
Tensor &exp_out(Tensor &result, const Tensor &self);
// ~self; integer dtypes only.
Tensor bitwise_not(const Tensor &self);
Tensor &bitwise_not_out(Tensor &result, const Tensor &self);

// ---- binary ----

// self + alpha * other, self - alpha * other.
Tensor add(const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor add(const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor &add_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor &add_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor sub(const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor sub(const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor &sub_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor &sub_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
// self * other.
Tensor mul(const Tensor &self, const Tensor &other);
Tensor mul(const Tensor &self, const Scalar &other);
Tensor &mul_out(Tensor &result, const Tensor &self, const Tensor &other);
Tensor &mul_out(Tensor &result, const Tensor &self, const Scalar &other);
// self / other, true division: integers compute in Float.
Tensor div(const Tensor &self, const Tensor &other);
Tensor div(const Tensor &self, const Scalar &other);
Tensor &div_out(Tensor &result, const Tensor &self, const Tensor &other);
Tensor &div_out(Tensor &result, const Tensor &self, const Scalar &other);
// self ** exponent (powf for floats; integers by repeated multiplication, wrapping).
Tensor pow(const Tensor &self, const Tensor &exponent);
Tensor pow(const Tensor &self, const Scalar &exponent);
Tensor pow(const Scalar &self, const Tensor &exponent);
Tensor &pow_out(Tensor &result, const Tensor &self, const Tensor &exponent);
Tensor &pow_out(Tensor &result, const Tensor &self, const Scalar &exponent);
Tensor &pow_out(Tensor &result, const Scalar &self, const Tensor &exponent);
// Bitwise and / or; integer dtypes only.
Tensor bitwise_and(const Tensor &self, const Tensor &other);
Tensor bitwise_and(const Tensor &self, const Scalar &other);
Tensor bitwise_and(const Scalar &self, const Tensor &other);
Tensor &bitwise_and_out(Tensor &result, const Tensor &self, const Tensor &other);
Tensor &bitwise_and_out(Tensor &result, const Tensor &self, const Scalar &other);
Tensor &bitwise_and_out(Tensor &result, const Scalar &self, const Tensor &other);
Tensor bitwise_or(const Tensor &self, const Tensor &other);
Tensor bitwise_or(const Tensor &self, const Scalar &other);
Tensor bitwise_or(const Scalar &self, const Tensor &other);
Tensor &bitwise_or_out(Tensor &result, const Tensor &self, const Tensor &other);
Tensor &bitwise_or_out(Tensor &result, const Tensor &self, const Scalar &other);
Tensor &bitwise_or_out(Tensor &result, const Scalar &self, const Tensor &other);

// ---- clamp ----

// min(max(self, min), max): NaN stays NaN, min > max gives max, a NaN bound gives NaN.
Tensor clamp(const Tensor &self, const Scalar &min, const Scalar &max);
Tensor &clamp_out(Tensor &result, const Tensor &self, const Scalar &min, const Scalar &max);

} // namespace at

#endif
