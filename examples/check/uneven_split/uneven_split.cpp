// ReLU on eight cores through 1-D element accessors. Each core takes a slice of
// ceil(numel / 8) elements, but the last slice is not clamped to numel: when numel is not a
// multiple of 8 the last core reads and writes past the end of both tensors.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	int64_t num_elem = t_in.numel();
	torch::Tensor t_out = get_dst_tensor();

	int64_t cpu_id = get_cpu_id();
	int64_t cpu_count = get_cpu_count();
	int64_t slice = (num_elem + cpu_count - 1) / cpu_count; // round up so nothing is left over
	int64_t first = slice * cpu_id;

	auto in = t_in.accessor<float, 1>();
	auto out = t_out.accessor<float, 1>();
	for (int64_t i = first; i < first + slice; i++)
		out[i] = in[i] > 0.0f ? in[i] : 0.0f;
	return t_out;
}
