// The wrapper `q7emu build` generates for factory_2d.cpp's ops (Tensor, Scalar, int and float
// arguments), multicore, with a larger STACK_SIZE, written out by hand (q7/customop_abi.h).
#define STACK_SIZE 65536
#include <neuron/wrapper_api.h>

torch::Tensor scaled_transpose(const torch::Tensor &x, const torch::Scalar &scale, int64_t bias);
torch::Tensor identity_like(const torch::Tensor &x, double value);

extern "C" {
const uint32_t __q7_cpu_count = 8;
struct q7_kentry __q7_kernel_table[2] __attribute__((section(".kernel_info_table"), used)) = {};
}

static void scaled_transpose_wrapper()
{
	customop_setup(true);
	{
		const at::Tensor arg0 = customop_next_tensor();
		const at::Scalar arg1 = customop_next_scalar();
		const int64_t arg2 = customop_next_int64();
		at::Tensor output = scaled_transpose(arg0, arg1, arg2);
		customop_return_tensor(output);
	}
	customop_cleanup();
}

static void identity_like_wrapper()
{
	customop_setup(true);
	{
		const at::Tensor arg0 = customop_next_tensor();
		const double arg1 = customop_next_double();
		at::Tensor output = identity_like(arg0, arg1);
		customop_return_tensor(output);
	}
	customop_cleanup();
}

static int scaled_transpose_stack_switch() { return switch_stack_or_call_wrapper((uint32_t)scaled_transpose_wrapper); }
static int identity_like_stack_switch() { return switch_stack_or_call_wrapper((uint32_t)identity_like_wrapper); }

extern "C" uint32_t get_func_cnt(void) { return 2; }

extern "C" const char *get_func_name(uint32_t i)
{
	static const char *const names[2] = {"scaled_transpose", "identity_like"};
	return i < 2 ? names[i] : nullptr;
}

extern "C" q7_launcher_fn get_func_ptr(uint32_t i)
{
	static const q7_launcher_fn fns[2] = {scaled_transpose_stack_switch, identity_like_stack_switch};
	return i < 2 ? fns[i] : nullptr;
}
