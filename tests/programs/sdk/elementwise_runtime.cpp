// The element-wise ops in a kernel's surroundings (tests/tests/sdk_ops.rs): results written in
// place, straight into the op's output, and with the DATARAM heap taken by the kernel.
#include <torch/torch.h>

// clamp(a + 2 b, -10, 10), each op writing its result over `x`, a copy of `a`.
torch::Tensor in_place(const torch::Tensor &a, const torch::Tensor &b)
{
	torch::Tensor x = torch::add(a, 0);
	torch::add_out(x, x, b, 2);
	torch::clamp_out(x, x, -10, 10);
	return x;
}

// a + b written straight into the output: the only SDMA transfers are the op's.
torch::Tensor into_output(const torch::Tensor &a, const torch::Tensor &b)
{
	torch::Tensor r = get_dst_tensor();
	return torch::add_out(r, a, b);
}

// a + b with all but `keep` 1 KiB blocks of the DATARAM heap held by the kernel.
torch::Tensor squeezed(const torch::Tensor &a, const torch::Tensor &b, int64_t keep)
{
	static void *blocks[64];
	static void *crumbs[64];
	int n = 0, m = 0;
	while (n < 64 && (blocks[n] = neuron_dataram_allocate(1024)) != nullptr)
		n++;
	while (m < 64 && (crumbs[m] = neuron_dataram_allocate(16, 16)) != nullptr)
		m++;
	for (int i = 0; i < keep && i < n; i++)
		neuron_dataram_free(blocks[n - 1 - i]);
	torch::Tensor r = get_dst_tensor();
	torch::add_out(r, a, b);
	for (int i = keep; i < n; i++)
		neuron_dataram_free(blocks[n - 1 - i]);
	for (int i = 0; i < m; i++)
		neuron_dataram_free(crumbs[i]);
	return r;
}

// What the schema's scalars cannot carry: a bool alpha (0), an undefined operand (1).
torch::Tensor misuse(const torch::Tensor &a, int64_t which)
{
	if (which == 0)
		return torch::add(a, a, true);
	return torch::mul(torch::Tensor(), a);
}
