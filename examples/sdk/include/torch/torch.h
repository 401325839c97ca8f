// torch/torch.h - what a custom-op kernel includes: the device tensor API in the `torch` and
// `at` namespaces, the Neuron utilities, and the C/C++ library headers kernels commonly rely on
// through it.
#ifndef Q7_TORCH_TORCH_H
#define Q7_TORCH_TORCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <assert.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#include <ATen/ATen.h>
#include <neuron/neuron-utils.hpp>

namespace torch {
using namespace at;
} // namespace torch

#endif
