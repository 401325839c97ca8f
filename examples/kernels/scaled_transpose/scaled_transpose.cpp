// out = bias + scale · xᵀ for a 2-D float x: the output is made by a factory from a braced
// shape, filled with the int argument by fill_, then read and written through a 2-D accessor
// in transposed order (its row stride is x's row count) while x is read through its own.
#include <torch/torch.h>

torch::Tensor scaled_transpose(const torch::Tensor &x, const torch::Scalar &scale, int64_t bias)
{
	assert(x.dim() == 2);
	int64_t rows = x.size(0), cols = x.size(1);
	torch::Tensor out = torch::empty({cols, rows}, torch::kFloat);
	out.fill_(bias);

	float s = scale.to<float>();
	auto in = x.accessor<float, 2>();
	auto o = out.accessor<float, 2>();
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			o[c][r] += in[r][c] * s;
	return out;
}
