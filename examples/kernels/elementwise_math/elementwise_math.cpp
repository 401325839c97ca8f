// Element-wise exp, log and sin of a 1-D float32 tensor through <cmath>: std::exp(float) is the
// SDK's expf, std::log(float) its logf, std::sin(float) its sinf (examples/sdk/rt/math/README.md
// gives each function's error bound and edge cases). One op per function; each reads and writes
// through element accessors.
#include <cmath>
#include <stdint.h>
#include <torch/torch.h>

template <class F> static torch::Tensor each(const torch::Tensor &x, F f)
{
	torch::Tensor y = torch::empty_like(x);
	auto in = x.accessor<float, 1>();
	auto out = y.accessor<float, 1>();
	for (int64_t i = 0; i < x.size(0); i++)
		out[i] = f(in[i]);
	return y;
}

torch::Tensor exp_each(const torch::Tensor &x)
{
	return each(x, [](float v) { return std::exp(v); });
}

torch::Tensor log_each(const torch::Tensor &x)
{
	return each(x, [](float v) { return std::log(v); });
}

torch::Tensor sin_each(const torch::Tensor &x)
{
	return each(x, [](float v) { return std::sin(v); });
}
