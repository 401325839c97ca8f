// neuron/neuron-utils.hpp - the custom-op utilities of the public API: the core's identity, the
// op's pre-allocated output, the TCM user pool.
#ifndef Q7_NEURON_UTILS_HPP
#define Q7_NEURON_UTILS_HPP

#include <stdint.h>
#include <ATen/core/Tensor.h>
#include <q7/runtime.h>

// The op's pre-allocated output (the OUTPUT descriptor). Once called, the kernel's return value
// is ignored: the kernel writes its result here (each core its own slice in multicore mode).
at::Tensor get_dst_tensor();

namespace torch {
namespace neuron {
using ::get_dst_tensor;
} // namespace neuron
} // namespace torch

#endif
