// The element-wise ops of the public API (ATen/ops/elementwise.h) behind ten test ops: each
// takes the op to apply as an int (the codes of tests/tests/sdk_ops.rs), the X form returns
// its new tensor, the X_out form writes the output the host allocated (get_dst_tensor()), so
// the host chooses the result's dtype.
#include <torch/torch.h>

namespace {

enum Unary { ABS, CEIL, FLOOR, BITWISE_NOT, SIN, COS, TAN, LOG, LOG2, LOG10, EXP };
enum Binary { ADD, SUB, MUL, DIV, POW, AND, OR };

torch::Tensor unary_op(const torch::Tensor &x, int64_t op)
{
	switch (op) {
	case ABS: return torch::abs(x);
	case CEIL: return torch::ceil(x);
	case FLOOR: return torch::floor(x);
	case BITWISE_NOT: return torch::bitwise_not(x);
	case SIN: return torch::sin(x);
	case COS: return torch::cos(x);
	case TAN: return torch::tan(x);
	case LOG: return torch::log(x);
	case LOG2: return torch::log2(x);
	case LOG10: return torch::log10(x);
	case EXP: return torch::exp(x);
	}
	abort();
}

torch::Tensor &unary_op_out(torch::Tensor &r, const torch::Tensor &x, int64_t op)
{
	switch (op) {
	case ABS: return torch::abs_out(r, x);
	case CEIL: return torch::ceil_out(r, x);
	case FLOOR: return torch::floor_out(r, x);
	case BITWISE_NOT: return torch::bitwise_not_out(r, x);
	case SIN: return torch::sin_out(r, x);
	case COS: return torch::cos_out(r, x);
	case TAN: return torch::tan_out(r, x);
	case LOG: return torch::log_out(r, x);
	case LOG2: return torch::log2_out(r, x);
	case LOG10: return torch::log10_out(r, x);
	case EXP: return torch::exp_out(r, x);
	}
	abort();
}

} // namespace

torch::Tensor unary(const torch::Tensor &x, int64_t op) { return unary_op(x, op); }

torch::Tensor unary_out(const torch::Tensor &x, int64_t op)
{
	torch::Tensor r = get_dst_tensor();
	return unary_op_out(r, x, op);
}

torch::Tensor binary(const torch::Tensor &a, const torch::Tensor &b, const torch::Scalar &alpha, int64_t op)
{
	switch (op) {
	case ADD: return torch::add(a, b, alpha);
	case SUB: return torch::sub(a, b, alpha);
	case MUL: return torch::mul(a, b);
	case DIV: return torch::div(a, b);
	case POW: return torch::pow(a, b);
	case AND: return torch::bitwise_and(a, b);
	case OR: return torch::bitwise_or(a, b);
	}
	abort();
}

torch::Tensor binary_out(const torch::Tensor &a, const torch::Tensor &b, const torch::Scalar &alpha, int64_t op)
{
	torch::Tensor r = get_dst_tensor();
	switch (op) {
	case ADD: return torch::add_out(r, a, b, alpha);
	case SUB: return torch::sub_out(r, a, b, alpha);
	case MUL: return torch::mul_out(r, a, b);
	case DIV: return torch::div_out(r, a, b);
	case POW: return torch::pow_out(r, a, b);
	case AND: return torch::bitwise_and_out(r, a, b);
	case OR: return torch::bitwise_or_out(r, a, b);
	}
	abort();
}

torch::Tensor tensor_scalar(const torch::Tensor &a, const torch::Scalar &s, const torch::Scalar &alpha, int64_t op)
{
	switch (op) {
	case ADD: return torch::add(a, s, alpha);
	case SUB: return torch::sub(a, s, alpha);
	case MUL: return torch::mul(a, s);
	case DIV: return torch::div(a, s);
	case POW: return torch::pow(a, s);
	case AND: return torch::bitwise_and(a, s);
	case OR: return torch::bitwise_or(a, s);
	}
	abort();
}

torch::Tensor tensor_scalar_out(const torch::Tensor &a, const torch::Scalar &s, const torch::Scalar &alpha, int64_t op)
{
	torch::Tensor r = get_dst_tensor();
	switch (op) {
	case ADD: return torch::add_out(r, a, s, alpha);
	case SUB: return torch::sub_out(r, a, s, alpha);
	case MUL: return torch::mul_out(r, a, s);
	case DIV: return torch::div_out(r, a, s);
	case POW: return torch::pow_out(r, a, s);
	case AND: return torch::bitwise_and_out(r, a, s);
	case OR: return torch::bitwise_or_out(r, a, s);
	}
	abort();
}

torch::Tensor scalar_tensor(const torch::Scalar &s, const torch::Tensor &a, int64_t op)
{
	switch (op) {
	case POW: return torch::pow(s, a);
	case AND: return torch::bitwise_and(s, a);
	case OR: return torch::bitwise_or(s, a);
	}
	abort();
}

torch::Tensor scalar_tensor_out(const torch::Scalar &s, const torch::Tensor &a, int64_t op)
{
	torch::Tensor r = get_dst_tensor();
	switch (op) {
	case POW: return torch::pow_out(r, s, a);
	case AND: return torch::bitwise_and_out(r, s, a);
	case OR: return torch::bitwise_or_out(r, s, a);
	}
	abort();
}

torch::Tensor clamp_op(const torch::Tensor &x, const torch::Scalar &lo, const torch::Scalar &hi) { return torch::clamp(x, lo, hi); }

torch::Tensor clamp_op_out(const torch::Tensor &x, const torch::Scalar &lo, const torch::Scalar &hi)
{
	torch::Tensor r = get_dst_tensor();
	return torch::clamp_out(r, x, lo, hi);
}
