// Factories, fill_ and 2-D strided access: a [B, H, T + Z, Z]-shaped factory from a braced list
// of mixed integer expressions, fill_ with a Scalar, a transpose through 2-D accessors (the
// row stride is the inner size), sizes() equality, a Scalar and an int64_t argument, printf and
// assert.
#include <torch/torch.h>

torch::Tensor scaled_transpose(const torch::Tensor &x, const torch::Scalar &scale, int64_t bias)
{
	assert(x.dim() == 2);
	int64_t rows = x.size(0), cols = x.size(1);
	torch::Tensor out = torch::empty({cols, rows}, torch::kFloat);
	out.fill_(0);

	int64_t B = 1, H = 2, T = 3;
	int Z = 4;
	torch::Tensor scratch = torch::zeros({B, H, T + Z, Z}, torch::kFloat);
	if (scratch.numel() != B * H * (T + Z) * Z || scratch.stride(0) != H * (T + Z) * Z)
		printf("unexpected scratch shape %lld / stride %lld\n", (long long)scratch.numel(),
		       (long long)scratch.stride(0));

	torch::Tensor same = torch::full(x.sizes(), 1.5, x.options());
	if (!(same.sizes() == x.sizes()))
		abort();

	float s = scale.to<float>();
	auto in = x.accessor<float, 2>();
	auto o = out.accessor<float, 2>();
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			o[c][r] = in[r][c] * s + float(bias);
	printf("transposed %lldx%lld, scale %f, bias %lld, cpu %u of %u\n", (long long)rows, (long long)cols,
	       scale.toDouble(), (long long)bias, (unsigned)get_cpu_id(), (unsigned)get_cpu_count());
	return out;
}

torch::Tensor identity_like(const torch::Tensor &x, double value)
{
	torch::Tensor e = torch::eye(x.size(0), x.size(1), torch::TensorOptions().dtype(torch::kInt));
	torch::Tensor h = torch::ones({2, 2}, torch::kHalf);
	torch::Tensor b = torch::zeros_like(h, torch::kBFloat16);
	auto ha = h.accessor<c10::Half, 2>();
	auto ba = b.accessor<at::BFloat16, 2>();
	ba[1][1] = ha[0][0] + float(value);
	auto ea = e.accessor<int32_t, 2>();
	ea[0][0] = int32_t(value);
	return e;
}
