// The wrapper `q7emu build` generates for relu_element.cpp's two ops (the contract of
// q7/customop_abi.h), written out by hand so the runtime can be linked before the generator
// exists.
#include <neuron/wrapper_api.h>

torch::Tensor relu_forward(const torch::Tensor &t_in);
torch::Tensor relu_backward(const torch::Tensor &t_grad, const torch::Tensor &t_in);

extern "C" {
const uint32_t __q7_cpu_count = 1;
struct q7_kentry __q7_kernel_table[2] __attribute__((section(".kernel_info_table"), used)) = {};
}

static void relu_forward_wrapper()
{
	customop_setup(true);
	{
		const at::Tensor arg0 = customop_next_tensor();
		at::Tensor output = relu_forward(arg0);
		customop_return_tensor(output);
	}
	customop_cleanup();
}

static void relu_backward_wrapper()
{
	customop_setup(true);
	{
		const at::Tensor arg0 = customop_next_tensor();
		const at::Tensor arg1 = customop_next_tensor();
		at::Tensor output = relu_backward(arg0, arg1);
		customop_return_tensor(output);
	}
	customop_cleanup();
}

static int relu_forward_stack_switch() { return switch_stack_or_call_wrapper((uint32_t)relu_forward_wrapper); }
static int relu_backward_stack_switch() { return switch_stack_or_call_wrapper((uint32_t)relu_backward_wrapper); }

extern "C" uint32_t get_func_cnt(void) { return 2; }

extern "C" const char *get_func_name(uint32_t i)
{
	static const char *const names[2] = {"relu_forward", "relu_backward"};
	return i < 2 ? names[i] : nullptr;
}

extern "C" q7_launcher_fn get_func_ptr(uint32_t i)
{
	static const q7_launcher_fn fns[2] = {relu_forward_stack_switch, relu_backward_stack_switch};
	return i < 2 ? fns[i] : nullptr;
}
