/* descriptor.h - the rules an ARG_TENSOR descriptor must keep (PLATFORM.md "ARG_TENSOR
 * descriptor"): the first one a descriptor breaks, as an error code, the field and the values
 * involved. Header-only and free of device code, so it is also tested natively. */
#ifndef Q7_RT_DESCRIPTOR_H
#define Q7_RT_DESCRIPTOR_H

#include <stdint.h>
#include <q7/customop_abi.h>

namespace q7 {
namespace desc {

/* X(field, name in messages) */
#define Q7_DESC_FIELDS(X)            \
	X(None, "none")              \
	X(Location, "location")      \
	X(Flags, "flags")            \
	X(Reserved, "reserved")      \
	X(Output, "OUTPUT flag")     \
	X(Rank, "rank")              \
	X(Shape, "shape")            \
	X(NumElem, "num_elem")       \
	X(Dtype, "dtype")            \
	X(Addr, "addr")

enum class Field {
#define Q7_DESC_FIELD_ENUM(f, name) f,
	Q7_DESC_FIELDS(Q7_DESC_FIELD_ENUM)
#undef Q7_DESC_FIELD_ENUM
};

inline const char *field_name(Field f)
{
	switch (f) {
#define Q7_DESC_FIELD_NAME(f, name) \
	case Field::f:              \
		return name;
		Q7_DESC_FIELDS(Q7_DESC_FIELD_NAME)
#undef Q7_DESC_FIELD_NAME
	}
	return "?";
}

/* The verdict on one descriptor: error 0 = it keeps every rule. */
struct Check {
	uint32_t error;  /* Q7_ERR_BAD_DESCRIPTOR or Q7_ERR_BAD_DTYPE */
	Field field;
	uint64_t value;  /* the offending value */
	uint64_t limit;  /* what it had to be (or be at most) */
};

/* Bytes per element of an ISA dtype code (0 for INVALID). */
inline uint32_t dtype_bytes(uint32_t code)
{
	switch (code) {
#define Q7_DTYPE_BYTES(c, name, bytes, ok) \
	case c:                           \
		return bytes;
		Q7_DTYPES(Q7_DTYPE_BYTES)
#undef Q7_DTYPE_BYTES
	}
	return 0;
}

/* Whether the marshalling gate accepts an ISA dtype code. */
inline bool dtype_accepted(uint32_t code)
{
	switch (code) {
#define Q7_DTYPE_OK(c, name, bytes, ok) \
	case c:                         \
		return ok;
		Q7_DTYPES(Q7_DTYPE_OK)
#undef Q7_DTYPE_OK
	}
	return false;
}

inline const char *dtype_name(uint32_t code)
{
	switch (code) {
#define Q7_DTYPE_NAME(c, name, bytes, ok) \
	case c:                           \
		return #name;
		Q7_DTYPES(Q7_DTYPE_NAME)
#undef Q7_DTYPE_NAME
	}
	return "unknown";
}

inline uint32_t dim(const q7_arg_tensor &d, uint32_t i)
{
	return (d.flags & Q7_ARG_WIDE_SHAPE) ? d.shape.wide[i] : d.shape.narrow[i];
}

inline uint32_t shape_slots(const q7_arg_tensor &d)
{
	return (d.flags & Q7_ARG_WIDE_SHAPE) ? Q7_MAX_RANK_WIDE : Q7_MAX_RANK;
}

/* Checks descriptor `d`; `last`: it is the invocation's last; `output_last`: the last one must
 * be the OUTPUT descriptor (the op returns a tensor). */
inline Check check(const q7_arg_tensor &d, bool last, bool output_last)
{
	Check ok{0, Field::None, 0, 0};
	auto bad = [](Field f, uint64_t v, uint64_t limit) { return Check{Q7_ERR_BAD_DESCRIPTOR, f, v, limit}; };
	if (d.location > Q7_LOC_SCALAR)
		return bad(Field::Location, d.location, Q7_LOC_SCALAR);
	if (d.flags & ~uint32_t(Q7_ARG_OUTPUT | Q7_ARG_WIDE_SHAPE))
		return bad(Field::Flags, d.flags, Q7_ARG_OUTPUT | Q7_ARG_WIDE_SHAPE);
	if (d.reserved0 != 0)
		return bad(Field::Reserved, d.reserved0, 0);
	if (d.reserved1 != 0)
		return bad(Field::Reserved, d.reserved1, 0);
	bool out = (d.flags & Q7_ARG_OUTPUT) != 0;
	if (out && !(last && output_last))
		return bad(Field::Output, 1, 0);
	if (!out && last && output_last)
		return bad(Field::Output, 0, 1);
	if (out && d.location == Q7_LOC_SCALAR)
		return bad(Field::Output, 2, 0);
	uint32_t slots = shape_slots(d);
	if (d.location == Q7_LOC_SCALAR) {
		if (d.rank != 0)
			return bad(Field::Rank, d.rank, 0);
		for (uint32_t i = 0; i < slots; i++)
			if (dim(d, i) != 0)
				return bad(Field::Shape, dim(d, i), 0);
		if (d.num_elem != 1)
			return bad(Field::NumElem, d.num_elem, 1);
		if (d.dtype != Q7_SCALAR_DOUBLE && d.dtype != Q7_SCALAR_INT64)
			return Check{Q7_ERR_BAD_DTYPE, Field::Dtype, d.dtype, 0};
		return ok;
	}
	if (d.rank > slots)
		return bad(Field::Rank, d.rank, slots);
	uint64_t n = 1;
	bool overflow = false;
	for (uint32_t i = 0; i < slots; i++) {
		uint64_t v = dim(d, i);
		if (i >= d.rank) {
			if (v != 0)
				return bad(Field::Shape, v, 0);
			continue;
		}
		if (v != 0 && n > ~uint64_t(0) / v)
			overflow = true;
		n *= v;
	}
	if (overflow || n != d.num_elem)
		return bad(Field::NumElem, d.num_elem, overflow ? ~uint64_t(0) : n);
	if (d.dtype >= Q7_DTYPE_COUNT || !dtype_accepted(d.dtype))
		return Check{Q7_ERR_BAD_DTYPE, Field::Dtype, d.dtype, 0};
	uint64_t bytes = d.num_elem * dtype_bytes(d.dtype);
	if (d.num_elem > (~uint64_t(0) >> 3) || d.addr + bytes < d.addr)
		return bad(Field::Addr, d.addr, ~uint64_t(0) - bytes);
	if (d.location == Q7_LOC_LOCAL && (d.addr > 0xFFFFFFFFu || d.addr + bytes > 0x100000000ull))
		return bad(Field::Addr, d.addr, 0x100000000ull - bytes);
	return ok;
}

} // namespace desc
} // namespace q7

#endif
