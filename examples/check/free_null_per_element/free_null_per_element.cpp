// ReLU staged through TCM 1024 elements at a time. An element the fast path cannot take (a NaN)
// gets a TCM scratch block for a slow path; no element of a real input needs one, yet the
// kernel calls tcm_free on the scratch pointer after every element, allocated or not: one
// tcm_free(nullptr) per element.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = get_dst_tensor();

	static constexpr size_t chunk = 1024;
	float *buf = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	auto in = t_in.tcm_accessor();
	auto out = t_out.tcm_accessor();
	for (size_t i = 0; i < num_elem; i += chunk) {
		size_t n = (num_elem - i > chunk) ? chunk : num_elem - i;
		in.tensor_to_tcm<float>(buf, i, n);
		for (size_t j = 0; j < n; j++) {
			float *slow = nullptr;
			if (buf[j] != buf[j])
				slow = (float *)torch::neuron::tcm_malloc(64);
			buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
			torch::neuron::tcm_free(slow);
		}
		out.tcm_to_tensor<float>(buf, i, n);
	}
	torch::neuron::tcm_free(buf);
	return t_out;
}
