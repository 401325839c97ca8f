// printf, assert and abort as kernels use them (examples/sdk/README.md "Console"), the ops of
// tests/tests/sdk_console.rs: each prints `lines` lines "core C line I", then returns x, fails
// an assert or calls abort().
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <torch/torch.h>

namespace {

void say(int64_t lines)
{
	for (int64_t i = 0; i < lines; i++)
		printf("core %u line %lld\n", (unsigned)get_cpu_id(), (long long)i);
}

} // namespace

torch::Tensor say_lines(const torch::Tensor &x, int64_t lines)
{
	say(lines);
	return x;
}

torch::Tensor say_then_assert(const torch::Tensor &x, int64_t lines)
{
	say(lines);
	assert(x.numel() == lines); // ASSERT LINE
	return x;
}

torch::Tensor say_then_abort(const torch::Tensor &x, int64_t lines)
{
	say(lines);
	if (x.numel() != lines)
		abort(); // ABORT LINE
	return x;
}
