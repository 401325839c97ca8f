// ReLU staged through one big TCM buffer: 8192 floats (32 KiB), twice the 16 KiB pool, so
// tcm_malloc returns nullptr. The kernel only uses the null result to skip the work (returning
// the zeros it started with) and then calls tcm_free on the null pointer.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);

	static constexpr size_t chunk = 8192;
	float *buf = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	if (buf != nullptr) {
		auto in = t_in.tcm_accessor();
		auto out = t_out.tcm_accessor();
		for (size_t i = 0; i < num_elem; i += chunk) {
			size_t n = (num_elem - i > chunk) ? chunk : num_elem - i;
			in.tensor_to_tcm<float>(buf, i, n);
			for (size_t j = 0; j < n; j++)
				buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
			out.tcm_to_tensor<float>(buf, i, n);
		}
	}
	torch::neuron::tcm_free(buf);
	return t_out;
}
