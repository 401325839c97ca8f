// ReLU on eight cores, ported from the single-core kernel without get_dst_tensor(): each core
// fills its slice of a tensor of its own and returns it. The runtime copies each core's whole
// returned tensor — its slice and seven slices of zeros — over the output, so the output is
// whichever core's copy landed last: one slice of ReLU, the rest zeros.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	size_t num_elem = t_in.numel();
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);

	uint32_t cpu_id = get_cpu_id();
	uint32_t cpu_count = get_cpu_count();
	size_t slice = num_elem / cpu_count;
	size_t first = slice * cpu_id;
	if (cpu_id == cpu_count - 1)
		slice = num_elem - first;

	static constexpr size_t chunk = 1024;
	float *buf = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	if (buf == nullptr)
		return t_out;
	auto in = t_in.tcm_accessor();
	auto out = t_out.tcm_accessor();
	for (size_t i = 0; i < slice; i += chunk) {
		size_t n = (slice - i > chunk) ? chunk : slice - i;
		in.tensor_to_tcm<float>(buf, first + i, n);
		for (size_t j = 0; j < n; j++)
			buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
		out.tcm_to_tensor<float>(buf, first + i, n);
	}
	torch::neuron::tcm_free(buf);
	return t_out;
}
