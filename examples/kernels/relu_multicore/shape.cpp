// The host side of the relu_multicore project (examples/sdk/BUILD.md "Projects"): the output's shape
// and dtype, the input's, and the NEURON_LIBRARY registration naming the shape function and the
// kernel function (relu_multicore.cpp).
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in)
{
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	return t_out;
}

NEURON_LIBRARY(my_ops, m)
{
	m.def("relu_forward", &relu_fwd_shape, "relu_forward");
}
