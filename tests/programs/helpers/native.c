/* native.c - the helper routines (compiled for the host as q7_<name>) against the host's IEEE
 * arithmetic and C conversions, with the documented policies applied to the host's results:
 * NaN results are the default NaN, float-to-integer conversions saturate with NaN -> 0,
 * comparisons return the documented values (examples/sdk/rt/helpers/README.md).
 *
 *   native check N SEED [PART PARTS]  every C routine (index % PARTS == PART): N cases each
 *   native random NAME N SEED         one routine, N cases (N may exceed 2^32)
 *   native exhaustive NAME            a unary routine of a 32-bit operand: all 2^32 operands
 *   native digest N SEED              the reference digest of N cases of every routine
 * The string routines of mem.c (after the table's routines) are checked against the host C
 * library (memcmp against the byte-difference definition).
 *   native trace NAME N SEED          every case of one routine with its reference result
 *   native list                       every routine: "<name> unary32|other|device|string"
 * Each checking mode prints "<name> <cases> <mismatches>" per routine and the first mismatches
 * as "MISMATCH <name> case=<i> x=<hex> y=<hex> expected=<hex> got=<hex>"; it exits with 1 if
 * there is any. Build: cc -O2 -fno-builtin -ffp-contract=off -DQ7_HELPERS_HOST. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

/* ---- prototypes of the routines, from the table ---- */
#define CT_F32 float
#define CT_F64 double
#define CT_W32 u32
#define CT_W64 u64
#define CT_INT int
#define PROTO1(name, res, a, ga, where) CT_##res Q7_HELPER(name)(CT_##a);
#define PROTO2(name, res, a, ga, b, gb, where) CT_##res Q7_HELPER(name)(CT_##a, CT_##b);
Q7_ROUTINES(PROTO1, PROTO2)

/* ---- bit-pattern wrappers of the C routines (int32.S exists only on the device) ---- */
#define WRAP1_C(name, res, a)                                                        \
	static u64 call_##name(u64 x, u64 y)                                         \
	{                                                                            \
		(void)y;                                                             \
		return OUT_##res(Q7_HELPER(name)(IN_##a(x)));                        \
	}
#define WRAP2_C(name, res, a, b)                                                     \
	static u64 call_##name(u64 x, u64 y)                                         \
	{                                                                            \
		return OUT_##res(Q7_HELPER(name)(IN_##a(x), IN_##b(y)));             \
	}
#define WRAP1_ASM(name, res, a)
#define WRAP2_ASM(name, res, a, b)
#define WRAP1(name, res, a, ga, where) WRAP1_##where(name, res, a)
#define WRAP2(name, res, a, ga, b, gb, where) WRAP2_##where(name, res, a, b)
Q7_ROUTINES(WRAP1, WRAP2)

/* ---- references: the host's arithmetic with the documented policies ---- */
static u64 c32(float f)
{
	return f != f ? Q7_F32_QNAN : f32_to_bits(f);
}
static u64 c64(double f)
{
	return f != f ? Q7_F64_QNAN : f64_to_bits(f);
}
#define FA IN_F32(x)
#define FB IN_F32(y)
#define DA IN_F64(x)
#define DB IN_F64(y)
#define REF(name) static u64 ref_##name(u64 x, u64 y)

/* three-way result of a comparison: -1, 0, 1, or `unordered` */
#define CMP3(a, b, unordered) ((a) != (a) || (b) != (b) ? (unordered) : (a) < (b) ? -1 : (a) > (b))

REF(addsf3) { return c32(FA + FB); }
REF(subsf3) { return c32(FA - FB); }
REF(mulsf3) { return c32(FA * FB); }
REF(divsf3) { return c32(FA / FB); }
REF(negsf2) { (void)y; return (u32)x ^ 0x80000000u; }
REF(eqsf2) { return OUT_INT(FA == FB ? 0 : 1); }
REF(nesf2) { return OUT_INT(FA == FB ? 0 : 1); }
REF(ltsf2) { return OUT_INT(CMP3(FA, FB, 1)); }
REF(lesf2) { return OUT_INT(CMP3(FA, FB, 1)); }
REF(gtsf2) { return OUT_INT(CMP3(FA, FB, -1)); }
REF(gesf2) { return OUT_INT(CMP3(FA, FB, -1)); }
REF(unordsf2) { return OUT_INT(FA != FA || FB != FB); }
REF(adddf3) { return c64(DA + DB); }
REF(subdf3) { return c64(DA - DB); }
REF(muldf3) { return c64(DA * DB); }
REF(divdf3) { return c64(DA / DB); }
REF(negdf2) { (void)y; return x ^ 0x8000000000000000ull; }
REF(eqdf2) { return OUT_INT(DA == DB ? 0 : 1); }
REF(nedf2) { return OUT_INT(DA == DB ? 0 : 1); }
REF(ltdf2) { return OUT_INT(CMP3(DA, DB, 1)); }
REF(ledf2) { return OUT_INT(CMP3(DA, DB, 1)); }
REF(gtdf2) { return OUT_INT(CMP3(DA, DB, -1)); }
REF(gedf2) { return OUT_INT(CMP3(DA, DB, -1)); }
REF(unorddf2) { return OUT_INT(DA != DA || DB != DB); }

/* float -> integer: truncation, saturation at the type's bounds, NaN -> 0 */
#define TO_INT(v, lo, hi, T, lo_value, hi_value)                                     \
	((v) != (v) ? 0 : (v) >= (hi) ? (hi_value) : (v) < (lo) ? (lo_value) : (T)(v))
#define I32_LIMITS -2147483648.0, 2147483648.0, i32, (i32)0x80000000u, 0x7fffffff
#define U32_LIMITS -1.0 + 0x1p-30, 4294967296.0, u32, 0u, 0xffffffffu
#define I64_LIMITS -0x1p63, 0x1p63, i64, (i64)0x8000000000000000ull, 0x7fffffffffffffffll
#define U64_LIMITS -1.0 + 0x1p-30, 0x1p64, u64, 0ull, ~0ull
#define TO_INT_(v, limits) TO_INT(v, limits)
/* (values in (-1, 0) truncate to 0 in range; -1 and below saturate to 0) */
static u64 to_u32(double v) { return v <= -1.0 ? 0 : OUT_W32(TO_INT_(v, U32_LIMITS)); }
static u64 to_u64(double v) { return v <= -1.0 ? 0 : OUT_W64(TO_INT_(v, U64_LIMITS)); }
REF(fixsfsi) { (void)y; return OUT_W32(TO_INT_((double)FA, I32_LIMITS)); }
REF(fixunssfsi) { (void)y; return to_u32(FA); }
REF(fixsfdi) { (void)y; return OUT_W64(TO_INT_((double)FA, I64_LIMITS)); }
REF(fixunssfdi) { (void)y; return to_u64(FA); }
REF(fixdfsi) { (void)y; return OUT_W32(TO_INT_(DA, I32_LIMITS)); }
REF(fixunsdfsi) { (void)y; return to_u32(DA); }
REF(fixdfdi) { (void)y; return OUT_W64(TO_INT_(DA, I64_LIMITS)); }
REF(fixunsdfdi) { (void)y; return to_u64(DA); }
REF(floatsisf) { (void)y; return c32((float)(i32)x); }
REF(floatunsisf) { (void)y; return c32((float)(u32)x); }
REF(floatdisf) { (void)y; return c32((float)(i64)x); }
REF(floatundisf) { (void)y; return c32((float)x); }
REF(floatsidf) { (void)y; return c64((double)(i32)x); }
REF(floatunsidf) { (void)y; return c64((double)(u32)x); }
REF(floatdidf) { (void)y; return c64((double)(i64)x); }
REF(floatundidf) { (void)y; return c64((double)x); }
REF(extendsfdf2) { (void)y; return c64((double)FA); }
REF(truncdfsf2) { (void)y; return c32((float)DA); }
REF(powisf2) { return c32(__builtin_powif(FA, (int)(u32)y)); }
REF(powidf2) { return c64(__builtin_powi(DA, (int)(u32)y)); }

/* integers: INT_MIN / -1 is INT_MIN with remainder 0 (the host would trap) */
#define SDIV(T, a, b, min) ((b) == -1 ? (T)(0 - (u64)(a)) : (a) / (b))
#define SMOD(a, b) ((b) == -1 ? 0 : (a) % (b))
REF(mulsi3) { return (u32)((u32)x * (u32)y); }
REF(divsi3) { return OUT_W32(SDIV(i32, (i32)x, (i32)y, 0)); }
REF(udivsi3) { return (u32)x / (u32)y; }
REF(modsi3) { return OUT_W32(SMOD((i32)x, (i32)y)); }
REF(umodsi3) { return (u32)x % (u32)y; }
REF(muldi3) { return x * y; }
REF(divdi3) { return OUT_W64(SDIV(i64, (i64)x, (i64)y, 0)); }
REF(udivdi3) { return x / y; }
REF(moddi3) { return OUT_W64(SMOD((i64)x, (i64)y)); }
REF(umoddi3) { return x % y; }
REF(ashldi3) { return x << (y & 63); }
REF(ashrdi3) { return (u64)((i64)x >> (y & 63)); }
REF(lshrdi3) { return x >> (y & 63); }
REF(clzsi2) { (void)y; return OUT_INT((u32)x ? __builtin_clz((u32)x) : 32); }
REF(clzdi2) { (void)y; return OUT_INT(x ? __builtin_clzll(x) : 64); }
REF(ctzsi2) { (void)y; return OUT_INT((u32)x ? __builtin_ctz((u32)x) : 32); }
REF(ctzdi2) { (void)y; return OUT_INT(x ? __builtin_ctzll(x) : 64); }
REF(ffssi2) { (void)y; return OUT_INT(__builtin_ffs((int)(u32)x)); }
REF(ffsdi2) { (void)y; return OUT_INT(__builtin_ffsll((long long)x)); }
REF(popcountsi2) { (void)y; return OUT_INT(__builtin_popcount((u32)x)); }
REF(popcountdi2) { (void)y; return OUT_INT(__builtin_popcountll(x)); }
REF(paritysi2) { (void)y; return OUT_INT(__builtin_parity((u32)x)); }
REF(paritydi2) { (void)y; return OUT_INT(__builtin_parityll(x)); }
REF(bswapsi2) { (void)y; return __builtin_bswap32((u32)x); }
REF(bswapdi2) { (void)y; return __builtin_bswap64(x); }
REF(clrsbsi2) { (void)y; return OUT_INT(__builtin_clrsb((int)(u32)x)); }
REF(clrsbdi2) { (void)y; return OUT_INT(__builtin_clrsbll((long long)x)); }

/* ---- the table ---- */
typedef struct {
	const char *name;
	int binary;
	enum Gen ga, gb;
	u64 (*helper)(u64, u64); /* null: device only */
	u64 (*ref)(u64, u64);
	int arg32; /* the (first) operand is 32 bits wide */
} Routine;

#define HELPER_C(name) call_##name
#define HELPER_ASM(name) 0
#define WIDE_F32 1
#define WIDE_W32 1
#define WIDE_F64 0
#define WIDE_W64 0
#define ENTRY1(name, res, a, ga, where) {#name, 0, ga, ga, HELPER_##where(name), ref_##name, WIDE_##a},
#define ENTRY2(name, res, a, ga, b, gb, where)                                       \
	{#name, 1, ga, gb, HELPER_##where(name), ref_##name, WIDE_##a},
static const Routine ROUTINES[] = {Q7_ROUTINES(ENTRY1, ENTRY2)};
#define NROUTINES ((int)COUNT(ROUTINES))

#define SHOW_MISMATCHES 5

static void mismatch(const char *name, u64 i, u64 x, u64 y, u64 want, u64 got, u64 *bad)
{
	if (++*bad <= SHOW_MISMATCHES)
		printf("MISMATCH %s case=%llu x=0x%llx y=0x%llx expected=0x%llx got=0x%llx\n", name,
		       (unsigned long long)i, (unsigned long long)x, (unsigned long long)y,
		       (unsigned long long)want, (unsigned long long)got);
}

static u32 key_of(int k)
{
	const Routine *r = &ROUTINES[k];
	return stream_key(r->binary, r->ga, r->gb);
}

/* ---- the string routines ---- */
void *q7_memcpy(void *d, const void *s, msize n);
void *q7_memmove(void *d, const void *s, msize n);
void *q7_memset(void *d, int c, msize n);
int q7_memcmp(const void *a, const void *b, msize n);
msize q7_strlen(const char *s);

static int ref_memcmp(const void *a, const void *b, msize n)
{
	const unsigned char *x = a, *y = b;
	for (msize i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}

static msize ref_strlen(const char *s)
{
	msize n = 0;
	while (s[n])
		n++;
	return n;
}

static const MemImpl HELPERS_MEM = {q7_memcpy, q7_memmove, q7_memset, q7_memcmp, q7_strlen};
static const MemImpl REFERENCE_MEM = {memcpy, memmove, memset, ref_memcmp, ref_strlen};
#define MEM_NAME(name) #name,
static const char *const MEM_NAMES[] = {MEM_ROUTINES(MEM_NAME)};
#define NALL (NROUTINES + MEM_COUNT)

static const char *name_of(int k)
{
	return k < NROUTINES ? ROUTINES[k].name : MEM_NAMES[k - NROUTINES];
}

static int find(const char *name)
{
	for (int k = 0; k < NALL; k++)
		if (strcmp(name_of(k), name) == 0)
			return k;
	fprintf(stderr, "native: no routine %s\n", name);
	exit(2);
}

static u64 check_mem(int k, u64 n, u32 seed)
{
	enum MemOp op = (enum MemOp)(k - NROUTINES);
	Rng r;
	rng_seed(&r, seed, MEM_STREAM(op));
	u64 bad = 0;
	static u32 b1[MEMBUF / 4], b2[MEMBUF / 4];
	for (u64 i = 0; i < n; i++) {
		MemParams p;
		mem_params(&r, op, &p);
		mem_fill(&p, (unsigned char *)b1);
		memcpy(b2, b1, MEMBUF);
		u64 got = mem_run(op, &p, (unsigned char *)b1, &HELPERS_MEM);
		u64 want = mem_run(op, &p, (unsigned char *)b2, &REFERENCE_MEM);
		if (got != want || memcmp(b1, b2, MEMBUF) != 0) {
			if (++bad <= SHOW_MISMATCHES)
				printf("MISMATCH %s case=%llu fill=0x%x dst=%u src=%u n=%u c=0x%x "
				       "expected=0x%llx got=0x%llx%s\n",
				       MEM_NAMES[op], (unsigned long long)i, p.fill, p.d, p.s, p.n, p.c,
				       (unsigned long long)want, (unsigned long long)got,
				       got == want ? " (buffers differ)" : "");
		}
	}
	printf("%s %llu %llu\n", MEM_NAMES[op], (unsigned long long)n, (unsigned long long)bad);
	fflush(stdout);
	return bad;
}

/* n cases of every selected table routine (sel[k]), each stream generated once for all the
 * routines reading it; prints the counts and returns the number of mismatches. */
static u64 check(const int *sel, u64 n, u32 seed)
{
	u64 total = 0;
	int done[NROUTINES] = {0};
	for (int k = 0; k < NROUTINES; k++) {
		if (!sel[k] || done[k])
			continue;
		int group[NROUTINES], g = 0;
		u64 bad[NROUTINES] = {0};
		for (int j = k; j < NROUTINES; j++)
			if (sel[j] && !done[j] && key_of(j) == key_of(k)) {
				group[g++] = j;
				done[j] = 1;
			}
		const Routine *r0 = &ROUTINES[k];
		Cases c;
		cases_init(&c, seed, r0->binary, r0->ga, r0->gb);
		for (u64 i = 0; i < n; i++) {
			u64 x, y;
			cases_next(&c, &x, &y);
			for (int m = 0; m < g; m++) {
				const Routine *r = &ROUTINES[group[m]];
				u64 want = r->ref(x, y), got = r->helper(x, y);
				if (want != got)
					mismatch(r->name, i, x, y, want, got, &bad[m]);
			}
		}
		for (int m = 0; m < g; m++) {
			printf("%s %llu %llu\n", ROUTINES[group[m]].name, (unsigned long long)n,
			       (unsigned long long)bad[m]);
			total += bad[m];
		}
		fflush(stdout);
	}
	return total;
}

static u64 exhaustive(int k)
{
	const Routine *r = &ROUTINES[k];
	if (k >= NROUTINES || r->binary || !r->arg32 || !r->helper) {
		fprintf(stderr, "native: %s is not a unary routine of a 32-bit operand\n",
			name_of(k));
		exit(2);
	}
	u64 bad = 0;
	for (u64 x = 0; x <= 0xffffffffull; x++) {
		u64 want = r->ref(x, 0), got = r->helper(x, 0);
		if (want != got)
			mismatch(r->name, x, x, 0, want, got, &bad);
	}
	printf("%s %llu %llu\n", r->name, 1ull << 32, (unsigned long long)bad);
	return bad;
}

/* The reference digest of n cases of routine k; with trace, every case is printed as the
 * device prints it ("<i> <x> <y> <result>"; for the string routines "<i> <fill> <n> <digest>"). */
static u64 digest(int k, u64 n, u32 seed, int trace)
{
	Digest d;
	digest_init(&d);
	if (k >= NROUTINES) {
		enum MemOp op = (enum MemOp)(k - NROUTINES);
		Rng r;
		rng_seed(&r, seed, MEM_STREAM(op));
		static u32 b[MEMBUF / 4];
		for (u64 i = 0; i < n; i++) {
			MemParams p;
			mem_params(&r, op, &p);
			mem_fill(&p, (unsigned char *)b);
			digest_add(&d, mem_run(op, &p, (unsigned char *)b, &REFERENCE_MEM));
			digest_words(&d, (const unsigned char *)b, MEMBUF);
			if (trace)
				printf("%llu %x %x %llx\n", (unsigned long long)i, p.fill, p.n,
				       (unsigned long long)digest_value(&d));
		}
		return digest_value(&d);
	}
	const Routine *r = &ROUTINES[k];
	Cases c;
	cases_init(&c, seed, r->binary, r->ga, r->gb);
	for (u64 i = 0; i < n; i++) {
		u64 x, y;
		cases_next(&c, &x, &y);
		u64 v = r->ref(x, y);
		digest_add(&d, v);
		if (trace)
			printf("%llu %llx %llx %llx\n", (unsigned long long)i, (unsigned long long)x,
			       (unsigned long long)y, (unsigned long long)v);
	}
	return digest_value(&d);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	u64 bad = 0;
	int sel[NALL] = {0};
	if (strcmp(mode, "check") == 0 && argc >= 4) {
		u64 n = strtoull(argv[2], 0, 0);
		u32 seed = (u32)strtoul(argv[3], 0, 0);
		int part = argc >= 6 ? atoi(argv[4]) : 0, parts = argc >= 6 ? atoi(argv[5]) : 1;
		for (int k = 0; k < NALL; k++)
			sel[k] = (k >= NROUTINES || ROUTINES[k].helper) && k % parts == part;
		bad = check(sel, n, seed);
		for (int k = NROUTINES; k < NALL; k++)
			if (sel[k])
				bad += check_mem(k, n, seed);
	} else if (strcmp(mode, "random") == 0 && argc >= 5) {
		int k = find(argv[2]);
		u64 n = strtoull(argv[3], 0, 0);
		u32 seed = (u32)strtoul(argv[4], 0, 0);
		if (k < NROUTINES && !ROUTINES[k].helper) {
			fprintf(stderr, "native: %s runs on the device only\n", argv[2]);
			return 2;
		}
		sel[k] = 1;
		bad = k < NROUTINES ? check(sel, n, seed) : check_mem(k, n, seed);
	} else if (strcmp(mode, "exhaustive") == 0 && argc >= 3) {
		bad = exhaustive(find(argv[2]));
	} else if (strcmp(mode, "digest") == 0 && argc >= 4) {
		u64 n = strtoull(argv[2], 0, 0);
		u32 seed = (u32)strtoul(argv[3], 0, 0);
		for (int k = 0; k < NALL; k++)
			printf("%s %llu %016llx\n", name_of(k), (unsigned long long)n,
			       (unsigned long long)digest(k, n, seed, 0));
	} else if (strcmp(mode, "list") == 0) {
		for (int k = 0; k < NALL; k++) {
			const Routine *r = &ROUTINES[k];
			printf("%s %s\n", name_of(k),
			       k >= NROUTINES	      ? "string"
			       : !r->helper	      ? "device"
			       : !r->binary && r->arg32 ? "unary32"
							: "other");
		}
	} else if (strcmp(mode, "trace") == 0 && argc >= 5) {
		digest(find(argv[2]), strtoull(argv[3], 0, 0), (u32)strtoul(argv[4], 0, 0), 1);
	} else {
		fprintf(stderr, "usage: native check N SEED [PART PARTS] | random NAME N SEED | "
				"exhaustive NAME | digest N SEED | trace NAME N SEED | list\n");
		return 2;
	}
	return bad ? 1 : 0;
}
