// Element-wise ops of the public API (ATen/ops/elementwise.h, docs/sdk-ops.md) on tensors of
// any of their dtypes: the op's dtype follows PyTorch's type promotion, and the data moves
// between HBM and DataRAM by SDMA in chunks, inside the ops.
#include <torch/torch.h>

// clamp(x + 2 y, lo, hi): float inputs give a float result, integer inputs an integer one
// (wrapping on overflow), Half inputs are computed in float and rounded once per op.
torch::Tensor clamp_add(const torch::Tensor &x, const torch::Tensor &y, const torch::Scalar &lo,
			const torch::Scalar &hi)
{
	return torch::clamp(torch::add(x, y, 2), lo, hi);
}

// a + b as one bulk op: the same sum as vector_add's element-accessor loop.
torch::Tensor add_bulk(const torch::Tensor &a, const torch::Tensor &b) { return torch::add(a, b); }
