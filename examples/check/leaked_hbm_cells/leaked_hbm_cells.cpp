// ReLU staged through TCM 1024 elements at a time, which also records each element's result in
// a 4-byte HBM cell of its own from neuron_hbm_allocate (a debugging leftover). The cells are
// never freed: every element leaks one allocation of the core's HBM heap.
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
			buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
			Q7PtrType cell = neuron_hbm_allocate(sizeof(float));
			if (!cell.is_nullptr)
				*(float *)cell.translate() = buf[j];
		}
		out.tcm_to_tensor<float>(buf, i, n);
	}
	torch::neuron::tcm_free(buf);
	return t_out;
}
