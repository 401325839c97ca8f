// The host side of the relu_element project (examples/sdk/BUILD.md "Projects"): each op's
// output shape and dtype, computed from its inputs', and the NEURON_LIBRARY registration naming
// each op's shape function and kernel function (relu_element.cpp).
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in)
{
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	return t_out;
}

torch::Tensor relu_bwd_shape(torch::Tensor t_grad, torch::Tensor t_in)
{
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	return t_out;
}

NEURON_LIBRARY(my_ops, m)
{
	m.def("relu_forward", &relu_fwd_shape, "relu_forward");
	m.def("relu_backward", &relu_bwd_shape, "relu_backward");
}
