/* bitwise.cpp - bitwise_and, bitwise_or (docs/sdk-ops.md "The ops"): integer computation
 * dtypes only; a scalar operand is converted to the computation dtype as a C++ cast. */
#include <ATen/ATen.h>

#include "elementwise.h"

using namespace q7::ops;
using c10::Scalar;

namespace at {

namespace {

Plan bitwise(const char *op, Arg self, Arg other, SlotFn fn)
{
	Plan pl(op, self, other, INTEGER_ONLY);
	pl.set_loop(fn);
	return pl;
}

constexpr SlotFn AND = int_loop<and_i>;
constexpr SlotFn OR = int_loop<or_i>;

} // namespace

Tensor bitwise_and(const Tensor &self, const Tensor &other)
{
	return bitwise("bitwise_and", Arg::tensor("self", self), Arg::tensor("other", other), AND).make();
}
Tensor bitwise_and(const Tensor &self, const Scalar &other)
{
	return bitwise("bitwise_and", Arg::tensor("self", self), Arg::scalar("other", other), AND).make();
}
Tensor bitwise_and(const Scalar &self, const Tensor &other)
{
	return bitwise("bitwise_and", Arg::scalar("self", self), Arg::tensor("other", other), AND).make();
}
Tensor &bitwise_and_out(Tensor &result, const Tensor &self, const Tensor &other)
{
	return bitwise("bitwise_and_out", Arg::tensor("self", self), Arg::tensor("other", other), AND).into(result);
}
Tensor &bitwise_and_out(Tensor &result, const Tensor &self, const Scalar &other)
{
	return bitwise("bitwise_and_out", Arg::tensor("self", self), Arg::scalar("other", other), AND).into(result);
}
Tensor &bitwise_and_out(Tensor &result, const Scalar &self, const Tensor &other)
{
	return bitwise("bitwise_and_out", Arg::scalar("self", self), Arg::tensor("other", other), AND).into(result);
}

Tensor bitwise_or(const Tensor &self, const Tensor &other)
{
	return bitwise("bitwise_or", Arg::tensor("self", self), Arg::tensor("other", other), OR).make();
}
Tensor bitwise_or(const Tensor &self, const Scalar &other)
{
	return bitwise("bitwise_or", Arg::tensor("self", self), Arg::scalar("other", other), OR).make();
}
Tensor bitwise_or(const Scalar &self, const Tensor &other)
{
	return bitwise("bitwise_or", Arg::scalar("self", self), Arg::tensor("other", other), OR).make();
}
Tensor &bitwise_or_out(Tensor &result, const Tensor &self, const Tensor &other)
{
	return bitwise("bitwise_or_out", Arg::tensor("self", self), Arg::tensor("other", other), OR).into(result);
}
Tensor &bitwise_or_out(Tensor &result, const Tensor &self, const Scalar &other)
{
	return bitwise("bitwise_or_out", Arg::tensor("self", self), Arg::scalar("other", other), OR).into(result);
}
Tensor &bitwise_or_out(Tensor &result, const Scalar &self, const Tensor &other)
{
	return bitwise("bitwise_or_out", Arg::scalar("self", self), Arg::tensor("other", other), OR).into(result);
}

} // namespace at
