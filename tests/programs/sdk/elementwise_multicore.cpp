// The element-wise ops in a multicore library (tests/tests/sdk_ops.rs): each core computes an
// op on the whole tensors (the API has no slicing) and copies its slice of the result into the
// output; or core 0 alone writes the output.
#include <torch/torch.h>

// Slice c of the output (numel / 8 elements from c times that, the last core taking the
// remainder) is slice c of a + (c + 1) b, computed by core c.
torch::Tensor per_core(const torch::Tensor &a, const torch::Tensor &b)
{
	uint32_t c = get_cpu_id(), n = get_cpu_count();
	torch::Tensor r = get_dst_tensor();
	torch::Tensor s = torch::add(a, b, int64_t(c + 1));
	size_t numel = size_t(s.numel()), len = numel / n, first = len * c;
	if (c == n - 1)
		len = numel - first;
	static constexpr size_t chunk = 256;
	float *buf = (float *)torch::neuron::tcm_malloc(chunk * sizeof(float));
	auto in = s.tcm_accessor();
	auto out = r.tcm_accessor();
	for (size_t i = 0; i < len; i += chunk) {
		size_t k = len - i < chunk ? len - i : chunk;
		in.tensor_to_tcm<float>(buf, first + i, k);
		out.tcm_to_tensor<float>(buf, first + i, k);
	}
	torch::neuron::tcm_free(buf);
	return r;
}

// Core 0 writes a * b into the output; the other cores do nothing.
torch::Tensor core0(const torch::Tensor &a, const torch::Tensor &b)
{
	torch::Tensor r = get_dst_tensor();
	if (get_cpu_id() == 0)
		torch::mul_out(r, a, b);
	return r;
}
