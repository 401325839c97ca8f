// ReLU forward and backward with element accessors (the first, slowest variant of the public
// MLP tutorial's ReLU): outputs from torch::zeros over the input's sizes.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);

	auto in = t_in.accessor<float, 1>();
	auto out = t_out.accessor<float, 1>();
	for (size_t i = 0; i < num_elem; i++)
		out[i] = in[i] > 0.0 ? in[i] : 0.0;
	return t_out;
}

torch::Tensor relu_backward(const torch::Tensor &t_grad, const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);

	auto in = t_in.accessor<float, 1>();
	auto grad = t_grad.accessor<float, 1>();
	auto out = t_out.accessor<float, 1>();
	for (size_t i = 0; i < num_elem; i++)
		out[i] = in[i] > 0.0 ? grad[i] : 0.0;
	return t_out;
}
