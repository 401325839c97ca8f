// The ARG_TENSOR rules (examples/sdk/rt/customop/descriptor.h, PLATFORM.md "ARG_TENSOR
// descriptor"): well-formed tensors and scalars pass; each broken rule is reported with its
// error code, field and values; the dtype gate accepts exactly {2,3,4,6,7,8,10,12}.
#include <stdint.h>
#include <string.h>
#include "descriptor.h"
#include "check.h"

using q7::desc::Check;
using q7::desc::Field;
using q7::desc::check;

static q7_arg_tensor tensor(uint8_t dtype, uint8_t rank, const uint32_t *dims, uint64_t n)
{
	q7_arg_tensor d;
	memset(&d, 0, sizeof d);
	d.location = Q7_LOC_HBM;
	d.dtype = dtype;
	d.rank = rank;
	d.addr = 0x40000000;
	d.num_elem = n;
	for (uint8_t i = 0; i < rank; i++)
		d.shape.narrow[i] = uint16_t(dims[i]);
	return d;
}

static bool is(Check c, uint32_t err, Field f) { return c.error == err && c.field == f; }

int main()
{
	const uint32_t d23[2] = {2, 3};
	q7_arg_tensor t = tensor(0xC, 2, d23, 6);
	CHECK_EQ(check(t, false, true).error, 0u);
	q7_arg_tensor out = t;
	out.flags = Q7_ARG_OUTPUT;
	CHECK_EQ(check(out, true, true).error, 0u);

	// The gate: 16 codes, 8 accepted.
	int accepted = 0;
	for (uint8_t code = 0; code < 16; code++) {
		q7_arg_tensor x = t;
		x.dtype = code;
		Check c = check(x, false, true);
		if (c.error == 0)
			accepted |= 1 << code;
		else
			CHECK(is(c, Q7_ERR_BAD_DTYPE, Field::Dtype) && c.value == code);
	}
	CHECK_EQ(accepted, (1 << 2) | (1 << 3) | (1 << 4) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 12));
	q7_arg_tensor fp32r = t;
	fp32r.dtype = 0xB;
	CHECK(is(check(fp32r, false, true), Q7_ERR_BAD_DTYPE, Field::Dtype));

	// Structure.
	q7_arg_tensor x = t;
	x.location = 3;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Location));
	x = t;
	x.flags = 0x4;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Flags));
	x = t;
	x.reserved0 = 1;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Reserved));
	x = t;
	x.reserved1 = 1ull << 40;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Reserved));
	x = t;
	x.rank = 9;
	Check c = check(x, false, true);
	CHECK(is(c, Q7_ERR_BAD_DESCRIPTOR, Field::Rank) && c.value == 9 && c.limit == 8);
	x = t;
	x.flags = Q7_ARG_WIDE_SHAPE;
	x.rank = 5;
	c = check(x, false, true);
	CHECK(is(c, Q7_ERR_BAD_DESCRIPTOR, Field::Rank) && c.limit == 4);
	x = t;
	x.num_elem = 7;
	c = check(x, false, true);
	CHECK(is(c, Q7_ERR_BAD_DESCRIPTOR, Field::NumElem) && c.value == 7 && c.limit == 6);
	x = t;
	x.shape.narrow[5] = 1; // a dim past the rank
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Shape));

	// Rank 0 is one element; a zero dim is an empty tensor.
	q7_arg_tensor r0 = tensor(0x6, 0, nullptr, 1);
	CHECK_EQ(check(r0, false, true).error, 0u);
	const uint32_t d40[2] = {4, 0};
	CHECK_EQ(check(tensor(0x6, 2, d40, 0), false, true).error, 0u);

	// Wide shapes: 4 x u32, and the product may exceed 32 bits.
	q7_arg_tensor w = tensor(0x3, 0, nullptr, 0);
	w.flags = Q7_ARG_WIDE_SHAPE;
	w.rank = 2;
	w.shape.wide[0] = 100000;
	w.shape.wide[1] = 100000;
	w.num_elem = 10000000000ull;
	CHECK_EQ(check(w, false, true).error, 0u);
	w.num_elem = 10000000000ull - 1;
	CHECK(is(check(w, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::NumElem));

	// OUTPUT placement: only the last, and the last must be it when the op returns a tensor.
	CHECK(is(check(out, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Output));
	c = check(t, true, true);
	CHECK(is(c, Q7_ERR_BAD_DESCRIPTOR, Field::Output) && c.value == 0);
	CHECK_EQ(check(t, true, false).error, 0u);

	// Scalars: rank 0, no shape, one element, double or int64 only, never OUTPUT.
	q7_arg_tensor s;
	memset(&s, 0, sizeof s);
	s.location = Q7_LOC_SCALAR;
	s.dtype = Q7_SCALAR_DOUBLE;
	s.num_elem = 1;
	double v = 2.5;
	memcpy(&s.addr, &v, 8);
	CHECK_EQ(check(s, false, true).error, 0u);
	s.dtype = Q7_SCALAR_INT64;
	CHECK_EQ(check(s, false, true).error, 0u);
	x = s;
	x.dtype = 0x6;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DTYPE, Field::Dtype));
	x = s;
	x.rank = 1;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Rank));
	x = s;
	x.num_elem = 2;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::NumElem));
	x = s;
	x.shape.narrow[0] = 1;
	CHECK(is(check(x, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Shape));
	x = s;
	x.flags = Q7_ARG_OUTPUT;
	c = check(x, true, true);
	CHECK(is(c, Q7_ERR_BAD_DESCRIPTOR, Field::Output) && c.value == 2);

	// Addresses: a local tensor must end inside the 32-bit space; HBM must not wrap.
	q7_arg_tensor l = t;
	l.location = Q7_LOC_LOCAL;
	l.addr = 0x00082000;
	CHECK_EQ(check(l, false, true).error, 0u);
	l.addr = 0xFFFFFFF0; // 24 bytes from there pass 2^32
	CHECK(is(check(l, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Addr));
	q7_arg_tensor h = t;
	h.addr = ~0ull - 8;
	CHECK(is(check(h, false, true), Q7_ERR_BAD_DESCRIPTOR, Field::Addr));

	// The names messages use.
	CHECK(strcmp(q7::desc::field_name(Field::NumElem), "num_elem") == 0);
	CHECK(strcmp(q7::desc::dtype_name(0xB), "FP32R") == 0);
	CHECK_EQ(q7::desc::dtype_bytes(0xA), 2u);
	return report();
}
