// neuron/wrapper_api.h - the runtime entry points the generated wrapper calls (q7/customop_abi.h
// shows the wrapper), and everything a kernel may use (seed spelling of the kernel's include).
#ifndef Q7_NEURON_WRAPPER_API_H
#define Q7_NEURON_WRAPPER_API_H

#include <stdint.h>
#include <torch/torch.h>
#include <q7/customop_abi.h>
#include <q7/runtime.h>

#ifndef STACK_SIZE
#define STACK_SIZE Q7_DEFAULT_STACK_SIZE
#endif
static_assert(STACK_SIZE <= Q7_MAX_STACK_SIZE, "STACK_SIZE is larger than MAX_STACK_SIZE (4 MiB)");

// Starts a dispatch: reads MBOX_NARGS and every ARG_TENSOR descriptor and checks them.
// `hasReturn`: the invocation ends with an OUTPUT descriptor.
void customop_setup(bool hasReturn);
// The next argument, which must be a tensor / a scalar (ARG_KIND otherwise).
at::Tensor customop_next_tensor();
at::Scalar customop_next_scalar();
double customop_next_double();
float customop_next_float();
int64_t customop_next_int64();
int customop_next_int();
long long customop_next_long_long();
bool customop_next_bool();
// Copies the kernel's result to the OUTPUT descriptor after checking dtype, rank and shape
// (RETURN_MISMATCH otherwise); nothing when the kernel wrote get_dst_tensor() itself.
void customop_return_tensor(at::Tensor &output);
// Drains the SDMA queues, fences, writes TPB_WRITE_RESPONSE.
void customop_cleanup();
// Runs `wrapper` on the current stack when `stack_size` bytes fit between SP and ISL, else on an
// HBM stack of `stack_size` bytes (at most MAX_STACK_SIZE); switches back before returning.
int switch_stack_or_call_wrapper(uint32_t wrapper, uint32_t stack_size = STACK_SIZE);
// Whether the wrapper now running runs on an HBM stack.
extern bool switched_stack;

#endif
