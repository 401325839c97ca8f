// ATen/Functions.h - tensor factories. Each makes a contiguous tensor on fresh HBM from this
// core's HBM heap, freed with its last handle; the dtype is the options' (kFloat when none is
// given). Any of the eight marshallable dtypes.
#ifndef Q7_ATEN_FUNCTIONS_H
#define Q7_ATEN_FUNCTIONS_H

#include <stdint.h>
#include <ATen/core/Tensor.h>

namespace at {

Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options = {});
// n x n (or n x m) with ones on the diagonal.
Tensor eye(int64_t n, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m, TensorOptions options = {});

// Same shape as `self`; the dtype of `options`, else `self`'s.
Tensor empty_like(const Tensor &self, TensorOptions options = {});
Tensor zeros_like(const Tensor &self, TensorOptions options = {});
Tensor ones_like(const Tensor &self, TensorOptions options = {});
Tensor full_like(const Tensor &self, const Scalar &fill_value, TensorOptions options = {});

} // namespace at

// The element-wise ops (add, mul, exp, clamp, ... and their _out forms).
#include <ATen/ops/elementwise.h>

#endif
