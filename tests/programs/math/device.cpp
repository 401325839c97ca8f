// device.cpp - the math library on the device: a kernel that applies function number `fn` of
// functions.h to each row of argument bit patterns (one or two per row) and returns the result
// bit patterns, for tests/tests/sdk_math.rs to compare bit for bit with the same C++ compiled
// for the host (native.cpp "values"). Float functions take and return int32 tensors, double
// functions int64 ones.
#include <math.h>
#include <stdint.h>
#include <string.h>
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

template <class T, class U> T as(U u)
{
	T t;
	memcpy(&t, &u, sizeof t);
	return t;
}

} // namespace

torch::Tensor probe_float(const torch::Tensor &args, int64_t fn)
{
	const Entry &e = FUNCTIONS[fn];
	auto in = args.accessor<int32_t, 2>();
	int64_t n = args.size(0);
	torch::Tensor out = torch::empty({n}, torch::kInt);
	auto o = out.accessor<int32_t, 1>();
	for (int64_t i = 0; i < n; i++) {
		float x = as<float>(in[i][0]), y = as<float>(in[i][1]);
		o[i] = as<int32_t>(e.f1 ? e.f1(x) : e.f2(x, y));
	}
	return out;
}

torch::Tensor probe_double(const torch::Tensor &args, int64_t fn)
{
	const Entry &e = FUNCTIONS[fn];
	auto in = args.accessor<int64_t, 2>();
	int64_t n = args.size(0);
	torch::Tensor out = torch::empty({n}, torch::kLong);
	auto o = out.accessor<int64_t, 1>();
	for (int64_t i = 0; i < n; i++) {
		double x = as<double>(in[i][0]), y = as<double>(in[i][1]);
		o[i] = as<int64_t>(e.d1 ? e.d1(x) : e.d2(x, y));
	}
	return out;
}
