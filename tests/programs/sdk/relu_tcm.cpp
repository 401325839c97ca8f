// ReLU forward with the TCM accessor (the tutorial's second variant): a tcm_malloc buffer,
// tensor_to_tcm / tcm_to_tensor over chunks, native loads and stores in between.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);

	static constexpr size_t buffer_size = 1024;
	float *tcm_buffer = (float *)torch::neuron::tcm_malloc(sizeof(float) * buffer_size);
	if (tcm_buffer != nullptr) {
		auto in_tcm = t_in.tcm_accessor();
		auto out_tcm = t_out.tcm_accessor();
		for (size_t i = 0; i < num_elem; i += buffer_size) {
			size_t remaining = num_elem - i;
			size_t copy_size = (remaining > buffer_size) ? buffer_size : remaining;
			in_tcm.tensor_to_tcm<float>(tcm_buffer, i, copy_size);
			for (size_t j = 0; j < copy_size; j++)
				tcm_buffer[j] = tcm_buffer[j] > 0.0 ? tcm_buffer[j] : 0.0;
			out_tcm.tcm_to_tensor<float>(tcm_buffer, i, copy_size);
		}
	}
	torch::neuron::tcm_free(tcm_buffer);
	return t_out;
}
