// ATen/ATen.h - the device tensor API: Tensor, accessors, factories, Scalar, dtypes.
#ifndef Q7_ATEN_ATEN_H
#define Q7_ATEN_ATEN_H

#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/TensorAccessor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#endif
