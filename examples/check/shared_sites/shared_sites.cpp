// Multiplies a float tensor by 6 — correctly — with the same instructions reaching different
// tensors: `get` is not inlined, so its load reads `t_in` from one call and `t_twice` from
// another, and the last loop makes one accessor per tensor and reads both through one line.
#include <stdint.h>
#include <torch/torch.h>

template <typename A> __attribute__((noinline)) static float get(const A &a, int64_t i)
{
	return a[i];
}

torch::Tensor six_times(const torch::Tensor &t_in)
{
	const int64_t n = t_in.numel();
	torch::Tensor t_twice = torch::zeros(t_in.sizes(), torch::kFloat);
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	const torch::Tensor &twice_ro = t_twice;
	{
		auto in = t_in.accessor<float, 1>();
		auto twice = t_twice.accessor<float, 1>();
		for (int64_t i = 0; i < n; i++)
			twice[i] = get(in, i) * 2.0f;
	}
	auto out = t_out.accessor<float, 1>();
	{
		auto in = t_in.accessor<float, 1>();
		auto twice = twice_ro.accessor<float, 1>();
		for (int64_t i = 0; i < n; i++)
			out[i] = get(twice, i) + get(in, i);
	}
	const torch::Tensor *parts[2] = {&t_in, &twice_ro};
	for (int p = 0; p < 2; p++) {
		auto part = parts[p]->accessor<float, 1>();
		for (int64_t i = 0; i < n; i++)
			out[i] += part[i];
	}
	return t_out;
}
