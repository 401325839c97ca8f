// Adds the input to a running-sum tensor and returns the sum. The sum is made with
// torch::empty_like (meant: zeros_like), so its first value at every element is read before
// anything was written to it.
#include <stdint.h>
#include <torch/torch.h>

torch::Tensor running_sum(const torch::Tensor &t_in)
{
	torch::Tensor t_sum = torch::empty_like(t_in);
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	auto in = t_in.accessor<float, 1>();
	auto sum = t_sum.accessor<float, 1>();
	auto out = t_out.accessor<float, 1>();
	for (int64_t i = 0; i < t_in.numel(); i++) {
		sum[i] += in[i];
		out[i] = sum[i];
	}
	return t_out;
}
