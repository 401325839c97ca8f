// device.cpp - the math library on the device: a kernel that applies function number `fn` of
// functions.h to each row of argument bit patterns (one or two per row) and returns the result
// bit patterns, for tests/tests/sdk_math.rs to compare bit for bit with the same C++ compiled
// for the host (native.cpp "values"). Float functions take and return int32 tensors, double
// functions int64 ones; rows go through TCM in chunks, so that the functions dominate the cost.
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

namespace {

struct Entry {
	float (*f1)(float);
	float (*f2)(float, float);
	double (*d1)(double);
	double (*d2)(double, double);
};

const Entry FUNCTIONS[] = {
#define F1(name) {name, nullptr, nullptr, nullptr},
#define F2(name) {nullptr, name, nullptr, nullptr},
#define D1(name) {nullptr, nullptr, name, nullptr},
#define D2(name) {nullptr, nullptr, nullptr, name},
#include "functions.h"
#undef F1
#undef F2
#undef D1
#undef D2
};

const size_t CHUNK = 128; /* rows per TCM round trip */

template <class T, class U> T as(U u)
{
	T t;
	memcpy(&t, &u, sizeof t);
	return t;
}

/* out[i] = the bits of f(args[i][0], args[i][1]) for W-bit words (int32_t or int64_t). */
template <class W, class Apply> torch::Tensor probe(const torch::Tensor &args, Apply apply)
{
	size_t n = size_t(args.size(0));
	torch::Tensor out = torch::empty({int64_t(n)}, sizeof(W) == 4 ? torch::kInt : torch::kLong);
	W *in_buf = (W *)torch::neuron::tcm_malloc(sizeof(W) * 2 * CHUNK);
	W *out_buf = (W *)torch::neuron::tcm_malloc(sizeof(W) * CHUNK);
	auto in = args.tcm_accessor();
	auto o = out.tcm_accessor();
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t k = n - i < CHUNK ? n - i : CHUNK;
		in.tensor_to_tcm<W>(in_buf, 2 * i, 2 * k);
		for (size_t j = 0; j < k; j++)
			out_buf[j] = apply(in_buf[2 * j], in_buf[2 * j + 1]);
		o.tcm_to_tensor<W>(out_buf, i, k);
	}
	torch::neuron::tcm_free(out_buf);
	torch::neuron::tcm_free(in_buf);
	return out;
}

} // namespace

torch::Tensor probe_float(const torch::Tensor &args, int64_t fn)
{
	const Entry &e = FUNCTIONS[fn];
	return probe<int32_t>(args, [&e](int32_t x, int32_t y) {
		float fx = as<float>(x), fy = as<float>(y);
		return as<int32_t>(e.f1 ? e.f1(fx) : e.f2(fx, fy));
	});
}

torch::Tensor probe_double(const torch::Tensor &args, int64_t fn)
{
	const Entry &e = FUNCTIONS[fn];
	return probe<int64_t>(args, [&e](int64_t x, int64_t y) {
		double dx = as<double>(x), dy = as<double>(y);
		return as<int64_t>(e.d1 ? e.d1(dx) : e.d2(dx, dy));
	});
}
