// ReLU on eight cores with TCM, partitioned as AWS's multicore ReLU tutorial partitions it:
// every core takes numel / 8 elements, the last core the remainder too, and each core's slice
// starts at its own slice size times its id. For the last core that size is the larger one,
// so when numel is not a multiple of 8 its slice starts past where it should and runs off the
// end of both tensors (docs/fuzzing.md finds this and fixes it).
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = get_dst_tensor();

	uint32_t cpu_id = get_cpu_id();
	uint32_t cpu_count = get_cpu_count();
	size_t slice = num_elem / cpu_count;
	if (cpu_id == cpu_count - 1)
		slice = num_elem - slice * (cpu_count - 1);
	size_t first = slice * cpu_id;

	static constexpr size_t chunk = 1024;
	float *buf = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	if (buf != nullptr) {
		auto in = t_in.tcm_accessor();
		auto out = t_out.tcm_accessor();
		for (size_t i = 0; i < slice; i += chunk) {
			size_t n = (slice - i > chunk) ? chunk : slice - i;
			in.tensor_to_tcm<float>(buf, first + i, n);
			for (size_t j = 0; j < n; j++)
				buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
			out.tcm_to_tensor<float>(buf, first + i, n);
		}
	}
	torch::neuron::tcm_free(buf);
	return t_out;
}
