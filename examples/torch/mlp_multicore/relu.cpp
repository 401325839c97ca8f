// The MLP's ReLU on the eight cores of the cluster, forward and backward: each core takes its
// slice of the elements (numel / get_cpu_count() from get_cpu_id() times that, the last core
// the remainder), stages it through TCM and writes straight into the output the host
// allocated (get_dst_tensor()), as examples/kernels/relu_multicore does for the forward op.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

namespace {

constexpr size_t chunk = 512;

// This core's slice of `numel` elements: [first, first + count).
void my_slice(size_t numel, size_t &first, size_t &count)
{
	uint32_t id = get_cpu_id(), cores = get_cpu_count();
	count = numel / cores;
	first = count * id;
	if (id == cores - 1)
		count = numel - first;
}

} // namespace

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	torch::Tensor t_out = get_dst_tensor();
	size_t first, count;
	my_slice(t_in.numel(), first, count);
	float *x = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	if (x != nullptr) {
		auto in = t_in.tcm_accessor();
		auto out = t_out.tcm_accessor();
		for (size_t i = 0; i < count; i += chunk) {
			size_t n = count - i < chunk ? count - i : chunk;
			in.tensor_to_tcm<float>(x, first + i, n);
			for (size_t j = 0; j < n; j++)
				x[j] = x[j] > 0.0f ? x[j] : 0.0f;
			out.tcm_to_tensor<float>(x, first + i, n);
		}
	}
	torch::neuron::tcm_free(x);
	return t_out;
}

torch::Tensor relu_backward(const torch::Tensor &t_grad, const torch::Tensor &t_in)
{
	torch::Tensor t_out = get_dst_tensor();
	size_t first, count;
	my_slice(t_in.numel(), first, count);
	float *x = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	float *g = (float *)torch::neuron::tcm_malloc(sizeof(float) * chunk);
	if (x != nullptr && g != nullptr) {
		auto in = t_in.tcm_accessor();
		auto grad = t_grad.tcm_accessor();
		auto out = t_out.tcm_accessor();
		for (size_t i = 0; i < count; i += chunk) {
			size_t n = count - i < chunk ? count - i : chunk;
			in.tensor_to_tcm<float>(x, first + i, n);
			grad.tensor_to_tcm<float>(g, first + i, n);
			for (size_t j = 0; j < n; j++)
				g[j] = x[j] > 0.0f ? g[j] : 0.0f;
			out.tcm_to_tensor<float>(g, first + i, n);
		}
	}
	torch::neuron::tcm_free(g);
	torch::neuron::tcm_free(x);
	return t_out;
}
