/* cases.h - the routine table and the case generator of the helper-routine tests, shared by the
 * native harness (native.c, host IEEE reference) and the device harness (device.c, run on the
 * emulator): the same seed gives the same cases on both sides.
 *
 * Each routine's cases: first every edge value (unary) or every pair of edge values (binary),
 * then random cases from a xorshift128 stream seeded from the seed and the routine's operand
 * generators (stream_key), so routines of the same operand kinds see the same cases and the
 * harnesses generate each case once for all of them. Generation uses only 32-bit additions,
 * shifts, masks, comparisons and word products, so on the device it calls none of the helpers
 * under test. */
#ifndef Q7_HELPER_CASES_H
#define Q7_HELPER_CASES_H

#include "helpers.h"

/* ---- the routine table ----
 * R1(name, result, arg, gen) and R2(name, result, arg1, gen1, arg2, gen2), where result/arg are
 * the C-level types (F32 F64 W32 W64 INT) and gen the operand's generator (below). `where` is
 * C for routines of the C files (run natively too) and ASM for int32.S (device only). */
#define Q7_ROUTINES(R1, R2)                                                          \
	R2(addsf3, F32, F32, GF32, F32, GF32, C)                                     \
	R2(subsf3, F32, F32, GF32, F32, GF32, C)                                     \
	R2(mulsf3, F32, F32, GF32, F32, GF32, C)                                     \
	R2(divsf3, F32, F32, GF32, F32, GF32, C)                                     \
	R1(negsf2, F32, F32, GF32, C)                                                \
	R2(eqsf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(nesf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(ltsf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(lesf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(gtsf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(gesf2, INT, F32, GF32, F32, GF32, C)                                      \
	R2(unordsf2, INT, F32, GF32, F32, GF32, C)                                   \
	R1(fixsfsi, W32, F32, GF32, C)                                               \
	R1(fixunssfsi, W32, F32, GF32, C)                                            \
	R1(fixsfdi, W64, F32, GF32, C)                                               \
	R1(fixunssfdi, W64, F32, GF32, C)                                            \
	R1(floatsisf, F32, W32, GI32, C)                                             \
	R1(floatunsisf, F32, W32, GI32, C)                                           \
	R1(floatdisf, F32, W64, GI64, C)                                             \
	R1(floatundisf, F32, W64, GI64, C)                                           \
	R2(adddf3, F64, F64, GF64, F64, GF64, C)                                     \
	R2(subdf3, F64, F64, GF64, F64, GF64, C)                                     \
	R2(muldf3, F64, F64, GF64, F64, GF64, C)                                     \
	R2(divdf3, F64, F64, GF64, F64, GF64, C)                                     \
	R1(negdf2, F64, F64, GF64, C)                                                \
	R2(eqdf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(nedf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(ltdf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(ledf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(gtdf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(gedf2, INT, F64, GF64, F64, GF64, C)                                      \
	R2(unorddf2, INT, F64, GF64, F64, GF64, C)                                   \
	R1(fixdfsi, W32, F64, GF64, C)                                               \
	R1(fixunsdfsi, W32, F64, GF64, C)                                            \
	R1(fixdfdi, W64, F64, GF64, C)                                               \
	R1(fixunsdfdi, W64, F64, GF64, C)                                            \
	R1(floatsidf, F64, W32, GI32, C)                                             \
	R1(floatunsidf, F64, W32, GI32, C)                                           \
	R1(floatdidf, F64, W64, GI64, C)                                             \
	R1(floatundidf, F64, W64, GI64, C)                                           \
	R1(extendsfdf2, F64, F32, GF32, C)                                           \
	R1(truncdfsf2, F32, F64, GF64, C)                                            \
	R2(powisf2, F32, F32, GF32, W32, GPOW, C)                                    \
	R2(powidf2, F64, F64, GF64, W32, GPOW, C)                                    \
	R2(mulsi3, W32, W32, GI32, W32, GI32, ASM)                                   \
	R2(divsi3, W32, W32, GI32, W32, GNZ32, ASM)                                  \
	R2(udivsi3, W32, W32, GI32, W32, GNZ32, ASM)                                 \
	R2(modsi3, W32, W32, GI32, W32, GNZ32, ASM)                                  \
	R2(umodsi3, W32, W32, GI32, W32, GNZ32, ASM)                                 \
	R2(muldi3, W64, W64, GI64, W64, GI64, C)                                     \
	R2(divdi3, W64, W64, GI64, W64, GNZ64, C)                                    \
	R2(udivdi3, W64, W64, GI64, W64, GNZ64, C)                                   \
	R2(moddi3, W64, W64, GI64, W64, GNZ64, C)                                    \
	R2(umoddi3, W64, W64, GI64, W64, GNZ64, C)                                   \
	R2(ashldi3, W64, W64, GI64, W32, GSH, C)                                     \
	R2(ashrdi3, W64, W64, GI64, W32, GSH, C)                                     \
	R2(lshrdi3, W64, W64, GI64, W32, GSH, C)                                     \
	R1(clzsi2, INT, W32, GI32, C)                                                \
	R1(clzdi2, INT, W64, GI64, C)                                                \
	R1(ctzsi2, INT, W32, GI32, C)                                                \
	R1(ctzdi2, INT, W64, GI64, C)                                                \
	R1(ffssi2, INT, W32, GI32, C)                                                \
	R1(ffsdi2, INT, W64, GI64, C)                                                \
	R1(popcountsi2, INT, W32, GI32, C)                                           \
	R1(popcountdi2, INT, W64, GI64, C)                                           \
	R1(paritysi2, INT, W32, GI32, C)                                             \
	R1(paritydi2, INT, W64, GI64, C)                                             \
	R1(bswapsi2, W32, W32, GI32, C)                                              \
	R1(bswapdi2, W64, W64, GI64, C)                                              \
	R1(clrsbsi2, INT, W32, GI32, C)                                              \
	R1(clrsbdi2, INT, W64, GI64, C)

/* ---- edge values ---- */
static const u32 EDGE_F32[] = {
	0x00000000, 0x80000000, /* +-0 */
	0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff, 0x00400000, /* subnormals */
	0x00800000, 0x80800000, 0x00800001, 0x01000000, /* smallest normals */
	0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x7f000000, 0x7effffff, /* largest normals */
	0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff, 0xbf7fffff, 0x40000000, 0x3fc00000,
	0x3f000000, 0xbf000000, 0x3effffff, 0x3f000001, 0x40400000, 0x3eaaaaab, /* near 1 */
	0x33800000, 0x34000000, 0x33ffffff, 0x33800001, /* half and one ulp of 1 */
	0x4b000000, 0x4b7fffff, 0x4b800000, 0x4b800001, 0xcb800001, /* 2^23, 2^24 */
	0x4effffff, 0x4f000000, 0x4f000001, 0xcf000000, 0xcf000001, 0xceffffff, /* 2^31 */
	0x4f7fffff, 0x4f800000, 0x4f800001, 0xbf7ffffe, /* 2^32 */
	0x5effffff, 0x5f000000, 0x5f000001, 0xdf000000, 0xdf000001, 0xdeffffff, /* 2^63 */
	0x5f7fffff, 0x5f800000, 0x5f800001, /* 2^64 */
	0x7f800000, 0xff800000, /* +-inf */
	0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff, 0xffffffff, /* quiet NaNs */
	0x7f800001, 0xff800001, 0x7fa00000, 0x7fbfffff, /* signalling NaNs */
};
static const u64 EDGE_F64[] = {
	0x0000000000000000ull, 0x8000000000000000ull, /* +-0 */
	0x0000000000000001ull, 0x8000000000000001ull, 0x0000000000000002ull,
	0x000fffffffffffffull, 0x800fffffffffffffull, 0x0008000000000000ull, /* subnormals */
	0x0010000000000000ull, 0x8010000000000000ull, 0x0010000000000001ull,
	0x0020000000000000ull, /* smallest normals */
	0x7fefffffffffffffull, 0xffefffffffffffffull, 0x7feffffffffffffeull,
	0x7fe0000000000000ull, 0x7fdfffffffffffffull, /* largest normals */
	0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3ff0000000000001ull,
	0x3fefffffffffffffull, 0xbfefffffffffffffull, 0x4000000000000000ull,
	0x3ff8000000000000ull, 0x3fe0000000000000ull, 0xbfe0000000000000ull,
	0x3fdfffffffffffffull, 0x3fe0000000000001ull, 0x4008000000000000ull,
	0x3fd5555555555555ull, /* near 1 */
	0x3ca0000000000000ull, 0x3cb0000000000000ull, 0x3c9fffffffffffffull,
	0x3ca0000000000001ull, /* half and one ulp of 1 */
	0x4330000000000000ull, 0x433fffffffffffffull, 0x4340000000000000ull,
	0x4340000000000001ull, 0xc340000000000001ull, /* 2^52, 2^53 */
	0x41dfffffffc00000ull, 0x41dfffffffffffffull, 0x41e0000000000000ull,
	0x41e0000000000001ull, 0xc1e0000000000000ull, 0xc1e0000000200000ull,
	0xc1e0000000000001ull, 0xc1dfffffffffffffull, /* 2^31 */
	0x41efffffffffffffull, 0x41f0000000000000ull, 0x41f0000000000001ull,
	0x41efffffffe00000ull, 0xbfeffffffffffffeull, /* 2^32 */
	0x43dfffffffffffffull, 0x43e0000000000000ull, 0x43e0000000000001ull,
	0xc3e0000000000000ull, 0xc3e0000000000001ull, 0xc3dfffffffffffffull, /* 2^63 */
	0x43efffffffffffffull, 0x43f0000000000000ull, 0x43f0000000000001ull, /* 2^64 */
	0x47efffffe0000000ull, 0x47efffffefffffffull, 0x47effffff0000000ull,
	0x47f0000000000000ull, 0x3810000000000000ull, 0x380fffffffffffffull,
	0x36a0000000000000ull, 0x3690000000000000ull, 0x3690000000000001ull,
	0x3698000000000000ull, /* float overflow, underflow and subnormal boundaries */
	0x7ff0000000000000ull, 0xfff0000000000000ull, /* +-inf */
	0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000000001ull,
	0x7fffffffffffffffull, 0xffffffffffffffffull, /* quiet NaNs */
	0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7ff4000000000000ull,
	0x7ff7ffffffffffffull, 0x7ff0000020000000ull, /* signalling NaNs */
};
static const u32 EDGE_I32[] = {
	0, 1, 2, 3, 0xffffffff, 0xfffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0x7ffffffe,
	0x00ffffff, 0x01000000, 0x01000001, 0x01000002, 0x01000003, 0x02000001, 0x02000002,
	0x02000003, 0x02000006, 0xfeffffff, 0xff000000, 0xfefffffe, 0x7fffffbf, 0x7fffffc0,
	0x7fffff80, 0x7fffff40, 0xffffff80, 0xffffff7f, 0x00010000, 0x0000ffff, 0x55555555,
	0xaaaaaaaa, 0x80000080, 0x80000040, 0xc0000000, 0x40000000, 10, 0xfffffff6, 7, 0xfffffff9,
};
static const u64 EDGE_I64[] = {
	0, 1, 2, 3, 0xffffffffffffffffull, 0xfffffffffffffffeull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0x8000000000000001ull, 0x7ffffffffffffffeull,
	0x00000000ffffffffull, 0x0000000100000000ull, 0x0000000100000001ull,
	0xffffffff00000000ull, 0xffffffff7fffffffull, 0x00000000ffffff80ull,
	0x001fffffffffffffull, 0x0020000000000000ull, 0x0020000000000001ull,
	0x0020000000000002ull, 0x0020000000000003ull, 0x0040000000000001ull,
	0x0040000000000002ull, 0x0040000000000006ull, 0xffdfffffffffffffull,
	0x7ffffffffffffdffull, 0x7ffffffffffffc00ull, 0x7ffffffffffffbffull,
	0xfffffffffffffc00ull, 0x0000008000000001ull, 0x0000010000000080ull,
	0x0000000001000001ull, 0x8000008000000000ull, 0x8000000000000400ull,
	0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull, 0x00000000ffffffffull * 3,
	10, 0xfffffffffffffff6ull, 0x000000000000ffffull, 0x0000ffff00000000ull,
};
static const u32 EDGE_POW[] = {
	0, 1, 0xffffffff, 2, 0xfffffffe, 3, 0xfffffffd, 31, 0xffffffe1, 32, 127, 0xffffff81,
	128, 150, 0xffffff6a, 1023, 0xfffffc01, 1100, 0x7fffffff, 0x80000000, 0x80000001,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- xorshift128: 32-bit operations only ---- */
typedef struct {
	u32 x, y, z, w;
} Rng;

static void rng_seed(Rng *r, u32 seed, u32 routine)
{
	r->x = 0x193a6754u ^ seed;
	r->y = 0xa8a7d469u ^ (routine * 0x9e3779b9u);
	r->z = 0x97830e05u;
	r->w = 0x113ba7bbu ^ seed ^ routine;
	for (int i = 0; i < 16; i++) { /* stir */
		u32 t = r->x ^ (r->x << 11);
		r->x = r->y;
		r->y = r->z;
		r->z = r->w;
		r->w = r->w ^ (r->w >> 19) ^ t ^ (t >> 8);
	}
}

static u32 rng_next(Rng *r)
{
	u32 t = r->x ^ (r->x << 11);
	r->x = r->y;
	r->y = r->z;
	r->z = r->w;
	r->w = r->w ^ (r->w >> 19) ^ t ^ (t >> 8);
	return r->w;
}

static u64 rng_next64(Rng *r)
{
	u32 hi = rng_next(r);
	return ((u64)hi << 32) | rng_next(r);
}

/* An index below n (n <= 2^16) from the top 16 bits of a word (one MULL, no division). */
static inline u32 below(u32 word, u32 n)
{
	return ((word >> 16) * n) >> 16;
}

static u32 rng_below(Rng *r, u32 n)
{
	return below(rng_next(r), n);
}

/* ---- generators ---- */
enum Gen { GF32, GF64, GI32, GI64, GNZ32, GNZ64, GSH, GPOW };

static u32 edge_count(enum Gen g)
{
	switch (g) {
	case GF32:
		return COUNT(EDGE_F32);
	case GF64:
		return COUNT(EDGE_F64);
	case GI32:
	case GNZ32:
		return COUNT(EDGE_I32);
	case GI64:
	case GNZ64:
		return COUNT(EDGE_I64);
	case GSH:
		return 64;
	case GPOW:
		return COUNT(EDGE_POW);
	}
	return 0;
}

static u64 edge_value(enum Gen g, u32 i)
{
	switch (g) {
	case GF32:
		return EDGE_F32[i];
	case GF64:
		return EDGE_F64[i];
	case GI32:
	case GNZ32:
		return EDGE_I32[i];
	case GI64:
	case GNZ64:
		return EDGE_I64[i];
	case GSH:
		return i;
	case GPOW:
		return EDGE_POW[i];
	}
	return 0;
}

/* A random float: an edge value, a neighbour of one, a value with a random exponent and a
 * significand ending in a random number of zeros (exact products, halfway cases), or random
 * bits. */
static u32 gen_f32(Rng *r)
{
	u32 c = rng_next(r), cls = c & 15;
	if (cls < 2)
		return EDGE_F32[below(c, COUNT(EDGE_F32))];
	if (cls == 2)
		return EDGE_F32[below(c, COUNT(EDGE_F32))] + ((c >> 4) & 7) - 4;
	u32 v = rng_next(r);
	if (cls < 7) {
		u32 zeros = below(c, 24);
		v = (v >> zeros) << zeros;
		if (cls == 6) /* exponents near 1 */
			v = (v & 0x807fffffu) | ((0x7f - 40 + ((c >> 4) & 63) + ((c >> 10) & 15)) << 23);
	}
	return v;
}

static u64 gen_f64(Rng *r)
{
	u32 c = rng_next(r), cls = c & 15;
	if (cls < 2)
		return EDGE_F64[below(c, COUNT(EDGE_F64))];
	if (cls == 2)
		return EDGE_F64[below(c, COUNT(EDGE_F64))] + ((c >> 4) & 7) - 4;
	u64 v = rng_next64(r);
	if (cls < 7) {
		u32 zeros = below(c, 53);
		v = (v >> zeros) << zeros;
		if (cls == 6) /* exponents near 1 */
			v = (v & 0x800fffffffffffffull) |
			    ((u64)(0x3ff - 80 + ((c >> 4) & 127) + ((c >> 11) & 31)) << 52);
	}
	return v;
}

/* A random integer: an edge value, or random bits of random length with random low zeros. */
static u64 gen_int(Rng *r, int bits)
{
	u32 c = rng_next(r), cls = c & 7;
	if (cls == 0)
		return bits == 32 ? EDGE_I32[below(c, COUNT(EDGE_I32))]
				  : EDGE_I64[below(c, COUNT(EDGE_I64))];
	u64 v = bits == 32 ? rng_next(r) : rng_next64(r);
	if (cls < 4) /* shorter magnitudes */
		v >>= below(c, (u32)bits);
	if (cls == 2) { /* low zeros, then maybe +-1: rounding boundaries */
		u32 zeros = (c >> 3) & (u32)(bits - 1);
		v = ((v >> zeros) << zeros) + ((c >> 9) & 3) - 1;
	}
	if ((cls & 1) && (c & 0x1000))
		v = -v;
	return bits == 32 ? (u32)v : v;
}

static u64 gen_value(Rng *r, enum Gen g)
{
	u64 v;
	switch (g) {
	case GF32:
		return gen_f32(r);
	case GF64:
		return gen_f64(r);
	case GI32:
		return gen_int(r, 32);
	case GI64:
		return gen_int(r, 64);
	case GNZ32:
		v = gen_int(r, 32);
		return v ? v : 1;
	case GNZ64:
		v = gen_int(r, 64);
		return v ? v : 1;
	case GSH:
		return rng_next(r) & 63;
	case GPOW:
		if (rng_next(r) & 7)
			return (u32)((rng_next(r) & 127) - 64);
		return rng_next(r);
	}
	return 0;
}

/* For two float operands: often give the second an exponent near the first's (cancellation,
 * rounding at every distance), its negation or itself. */
static u64 correlate(Rng *r, enum Gen g, u64 x, u64 y)
{
	u32 c = rng_next(r), cls = c & 15;
	if (g == GF32) {
		if (cls == 0)
			return x ^ 0x80000000u;
		if (cls == 1)
			return x;
		if (cls < 6) {
			u32 e = (u32)(x >> 23) & 0xff;
			u32 d = (c >> 4) & 63;
			e = e + d < 32 ? 0 : e + d - 32 > 0xff ? 0xff : e + d - 32;
			return (y & 0x807fffffu) | (e << 23);
		}
	} else if (g == GF64) {
		if (cls == 0)
			return x ^ 0x8000000000000000ull;
		if (cls == 1)
			return x;
		if (cls < 6) {
			u32 e = (u32)(x >> 52) & 0x7ff;
			u32 d = (c >> 4) & 127;
			e = e + d < 64 ? 0 : e + d - 64 > 0x7ff ? 0x7ff : e + d - 64;
			return (y & 0x800fffffffffffffull) | ((u64)e << 52);
		}
	}
	return y;
}

/* The case stream of one routine. */
typedef struct {
	Rng rng;
	enum Gen ga, gb;
	int binary;
	u32 ia, ib; /* the next edge pair (edge phase while ib < edge_count(gb)) */
	int edges_done;
} Cases;

/* The stream of a unary or binary routine with these operand generators. */
static u32 stream_key(int binary, enum Gen ga, enum Gen gb)
{
	return (u32)binary << 8 | (u32)ga << 4 | (u32)gb;
}

static void cases_init(Cases *c, u32 seed, int binary, enum Gen ga, enum Gen gb)
{
	rng_seed(&c->rng, seed, stream_key(binary, ga, gb));
	c->ga = ga;
	c->gb = gb;
	c->binary = binary;
	c->ia = c->ib = 0;
	c->edges_done = 0;
}

static void cases_next(Cases *c, u64 *x, u64 *y)
{
	if (!c->edges_done) {
		*x = edge_value(c->ga, c->ia);
		*y = c->binary ? edge_value(c->gb, c->ib) : 0;
		if (++c->ia == edge_count(c->ga)) {
			c->ia = 0;
			if (!c->binary || ++c->ib == edge_count(c->gb))
				c->edges_done = 1;
		}
		if (c->gb == GNZ32 || c->gb == GNZ64)
			*y = *y ? *y : 1;
		return;
	}
	*x = gen_value(&c->rng, c->ga);
	*y = c->binary ? gen_value(&c->rng, c->gb) : 0;
	if (c->binary && c->ga == c->gb)
		*y = correlate(&c->rng, c->ga, *x, *y);
	if (c->gb == GNZ32 && (u32)*y == 0)
		*y = 1;
}

/* ---- calling a routine on bit patterns ---- */
#define IN_F32(v) f32_from_bits((u32)(v))
#define IN_F64(v) f64_from_bits(v)
#define IN_W32(v) ((u32)(v))
#define IN_W64(v) (v)
#define OUT_F32(r) ((u64)f32_to_bits(r))
#define OUT_F64(r) f64_to_bits(r)
#define OUT_W32(r) ((u64)(u32)(r))
#define OUT_W64(r) ((u64)(r))
#define OUT_INT(r) ((u64)(u32)(r))

/* A 64-bit digest of a result stream: two mixed 32-bit lanes over the words of each result,
 * with word multiplies only (no 64-bit helper). */
typedef struct {
	u32 a, b;
} Digest;

static void digest_init(Digest *d)
{
	d->a = 0x811c9dc5u;
	d->b = 0x050c5d1fu;
}

static void digest_add(Digest *d, u64 v)
{
	u32 lo = (u32)v, hi = (u32)(v >> 32);
	d->a = (d->a ^ lo) * 16777619u;
	d->b = (d->b ^ hi ^ (d->a >> 13)) * 0x9e3779b1u;
	d->a = (d->a ^ hi ^ (d->b >> 17)) * 16777619u;
}

static u64 digest_value(const Digest *d)
{
	return ((u64)d->b << 32) | d->a;
}

/* ---- the string routines of mem.c ----
 * A case: a 144-byte buffer filled from a seed, one call with random offsets (0..7 and beyond),
 * lengths (short and long), fill values and, for memmove, overlaps in both directions; its
 * result is the return value (pointers as offsets into the buffer) and the whole buffer after
 * the call. */
#define MEM_ROUTINES(M) M(memcpy) M(memmove) M(memset) M(memcmp) M(strlen)
#define MEM_ENUM(name) MEM_##name,
enum MemOp { MEM_ROUTINES(MEM_ENUM) MEM_COUNT };
#define MEMBUF 144
#define MEM_STREAM(op) (0x1000u + (u32)(op)) /* the rng stream of a string routine */

typedef __SIZE_TYPE__ msize;
typedef struct {
	void *(*cpy)(void *, const void *, msize);
	void *(*move)(void *, const void *, msize);
	void *(*set)(void *, int, msize);
	int (*cmp)(const void *, const void *, msize);
	msize (*len)(const char *);
} MemImpl;

typedef struct {
	u32 fill, d, s, n, c;
} MemParams;

static void mem_params(Rng *r, enum MemOp op, MemParams *p)
{
	p->fill = rng_next(r);
	u32 v = rng_next(r);
	p->n = (v & 1) ? (v >> 1) & 15 : rng_below(r, 65);
	p->d = (v >> 8) & 7;
	p->s = (v >> 12) & 7;
	p->c = rng_next(r);
	if (op == MEM_memmove) { /* source above, below, apart from or at the destination */
		u32 w = (v >> 16) & 3;
		if (w == 0)
			p->s += 4;
		else if (w == 1)
			p->d += 4;
		else if (w == 2)
			p->s += 72;
		else
			p->s = p->d;
	} else {
		p->s += 72; /* source or second operand in the upper half */
	}
}

/* Fills buf (MEMBUF bytes, a u32 array) for a case. */
static void mem_fill(const MemParams *p, unsigned char *buf)
{
	u32 v = p->fill;
	u32 *w = (u32 *)buf; /* (host and device are both little-endian) */
	for (u32 i = 0; i < MEMBUF / 4; i++) {
		v = v * 1664525u + 1013904223u;
		w[i] = v ^ (v >> 15);
	}
}

/* Runs one case on a filled buf; returns the call's result. */
static u64 mem_run(enum MemOp op, const MemParams *p, unsigned char *buf, const MemImpl *impl)
{
	unsigned char *d = buf + p->d, *s = buf + p->s;
	switch (op) {
	case MEM_memcpy:
		return (u64)((unsigned char *)impl->cpy(d, s, p->n) - buf);
	case MEM_memmove:
		return (u64)((unsigned char *)impl->move(d, s, p->n) - buf);
	case MEM_memset:
		return (u64)((unsigned char *)impl->set(d, (int)p->c, p->n) - buf);
	case MEM_memcmp:
		/* equal operands with at most one differing byte (bits 8..15 of c pick it) */
		for (u32 i = 0; i < p->n; i++)
			s[i] = d[i];
		if (p->n && (p->c & 1)) {
			u32 at = (p->c >> 8) & 63;
			while (at >= p->n)
				at -= p->n;
			s[at] = (unsigned char)(p->c >> 16);
		}
		return (u64)(u32)impl->cmp(d, s, p->n);
	case MEM_strlen:
		for (u32 i = 0; i < p->n; i++)
			d[i] |= d[i] ? 0 : 1;
		d[p->n] = 0;
		return (u64)impl->len((const char *)d);
	case MEM_COUNT:
		break;
	}
	return 0;
}

static void digest_words(Digest *dg, const unsigned char *buf, u32 n)
{
	const u32 *w = (const u32 *)buf;
	for (u32 i = 0; i < n / 4; i++) {
		dg->a = (dg->a ^ w[i]) * 16777619u;
		dg->b = (dg->b + w[i]) * 0x9e3779b1u;
	}
}

#endif
