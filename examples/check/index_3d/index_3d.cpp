// Scales a 3-D float tensor by 2 through 3-D element accessors. The outer loop's bound is
// `<=` instead of `<`, so it runs one plane too far: [size(0)][j][k] is past the end of both
// the input and the output.
#include <stdint.h>
#include <torch/torch.h>

torch::Tensor scale3d(const torch::Tensor &t_in)
{
	torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
	auto in = t_in.accessor<float, 3>();
	auto out = t_out.accessor<float, 3>();
	int64_t n0 = t_in.size(0), n1 = t_in.size(1), n2 = t_in.size(2);
	for (int64_t i = 0; i <= n0; i++)
		for (int64_t j = 0; j < n1; j++)
			for (int64_t k = 0; k < n2; k++)
				out[i][j][k] = in[i][j][k] * 2.0f;
	return t_out;
}
