// torch/extension.h - what PyTorch's C++ extensions include, and so what the first versions of
// many public custom-op kernels include: on the device, the same API as <torch/torch.h>.
#ifndef Q7_TORCH_EXTENSION_H
#define Q7_TORCH_EXTENSION_H

#include <torch/torch.h>

#endif
