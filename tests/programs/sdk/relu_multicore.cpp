// ReLU forward on eight cores (the tutorial's third variant): get_dst_tensor(), each core a
// slice chosen from get_cpu_id() / get_cpu_count(), TCM staging, std::min for the chunk size.
#include <algorithm>
#include <stdint.h>
#include <stdlib.h>
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = get_dst_tensor();

	uint32_t cpu_id = get_cpu_id();
	uint32_t cpu_count = get_cpu_count();
	size_t per_core = (num_elem + cpu_count - 1) / cpu_count;
	size_t begin = std::min(num_elem, per_core * cpu_id);
	size_t end = std::min(num_elem, begin + per_core);

	static constexpr size_t buffer_size = 1024;
	float *tcm_buffer = (float *)torch::neuron::tcm_malloc(sizeof(float) * buffer_size);
	if (tcm_buffer != nullptr) {
		auto in_tcm = t_in.tcm_accessor();
		auto out_tcm = t_out.tcm_accessor();
		for (size_t i = begin; i < end; i += buffer_size) {
			size_t copy_size = std::min(buffer_size, end - i);
			in_tcm.tensor_to_tcm<float>(tcm_buffer, i, copy_size);
			for (size_t j = 0; j < copy_size; j++)
				tcm_buffer[j] = std::max(tcm_buffer[j], 0.0f);
			out_tcm.tcm_to_tensor<float>(tcm_buffer, i, copy_size);
		}
		torch::neuron::tcm_free(tcm_buffer);
	}
	return t_out;
}
