/* device.c - the helper routines on the device: Q7_N cases of every routine of cases.h (seed
 * Q7_SEED), printed over semihosting as "<name> <cases> <digest>" lines to compare with the
 * native harness's reference digests ("native digest"). With Q7_TRACE = k, only routine k runs
 * and every case is printed as "<i> <x> <y> <result>" (hex), as "native trace" prints the
 * reference (for the string routines "<i> <fill> <n> <running digest>"). Build with the
 * bare-metal runtime linked against the helpers (-DQ7_N=... -DQ7_SEED=... [-DQ7_TRACE=k]). */
#include "cases.h"
#include "semihost.h"

#ifndef Q7_TRACE
#define Q7_TRACE -1
#endif

#define CT_F32 float
#define CT_F64 double
#define CT_W32 u32
#define CT_W64 u64
#define CT_INT int
#define PROTO1(name, res, a, ga, where) CT_##res Q7_HELPER(name)(CT_##a);
#define PROTO2(name, res, a, ga, b, gb, where) CT_##res Q7_HELPER(name)(CT_##a, CT_##b);
Q7_ROUTINES(PROTO1, PROTO2)

#define WRAP1(name, res, a, ga, where)                                               \
	static u64 call_##name(u64 x, u64 y)                                         \
	{                                                                            \
		(void)y;                                                             \
		return OUT_##res(Q7_HELPER(name)(IN_##a(x)));                        \
	}
#define WRAP2(name, res, a, ga, b, gb, where)                                        \
	static u64 call_##name(u64 x, u64 y)                                         \
	{                                                                            \
		return OUT_##res(Q7_HELPER(name)(IN_##a(x), IN_##b(y)));             \
	}
Q7_ROUTINES(WRAP1, WRAP2)

typedef struct {
	const char *name;
	int binary;
	enum Gen ga, gb;
	u64 (*call)(u64, u64);
} Routine;

#define ENTRY1(name, res, a, ga, where) {#name, 0, ga, ga, call_##name},
#define ENTRY2(name, res, a, ga, b, gb, where) {#name, 1, ga, gb, call_##name},
static const Routine ROUTINES[] = {Q7_ROUTINES(ENTRY1, ENTRY2)};

/* ---- output: one line at a time, no library ---- */
static char line[96];
static int len;

static void put_str(const char *s)
{
	while (*s)
		line[len++] = *s++;
}

static void put_hex(u64 v)
{
	int started = 0;
	for (int i = 60; i >= 0; i -= 4) {
		u32 d = (u32)(v >> i) & 15;
		if (d || started || i == 0) {
			line[len++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
			started = 1;
		}
	}
}

static void put_hex16(u64 v)
{
	for (int i = 60; i >= 0; i -= 4) {
		u32 d = (u32)(v >> i) & 15;
		line[len++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
	}
}

static void put_dec(u32 v)
{
	char buf[12];
	int n = 0;
	do { /* by subtraction: no division helper in the harness */
		u32 d = 0;
		u32 rest = v;
		u32 tens = 0;
		while (rest >= 10) {
			rest -= 10;
			tens++;
		}
		d = rest;
		v = tens;
		buf[n++] = (char)('0' + d);
	} while (v);
	while (n)
		line[len++] = buf[--n];
}

static void flush(void)
{
	line[len++] = '\n';
	xt_write(1, line, len);
	len = 0;
}

void *memcpy(void *d, const void *s, msize n);
void *memmove(void *d, const void *s, msize n);
void *memset(void *d, int c, msize n);
int memcmp(const void *a, const void *b, msize n);
msize strlen(const char *s);
static const MemImpl HELPERS_MEM = {memcpy, memmove, memset, memcmp, strlen};
#define MEM_NAME(name) #name,
static const char *const MEM_NAMES[] = {MEM_ROUTINES(MEM_NAME)};

static void report(const char *name, const Digest *d)
{
	put_str(name);
	put_str(" ");
	put_dec(Q7_N);
	put_str(" ");
	put_hex16(digest_value(d));
	flush();
}

static void run_mem(u32 k)
{
	enum MemOp op = (enum MemOp)(k - COUNT(ROUTINES));
	static u32 buf[MEMBUF / 4];
	Rng r;
	Digest d;
	rng_seed(&r, Q7_SEED, MEM_STREAM(op));
	digest_init(&d);
	for (u32 i = 0; i < Q7_N; i++) {
		MemParams p;
		mem_params(&r, op, &p);
		mem_fill(&p, (unsigned char *)buf);
		digest_add(&d, mem_run(op, &p, (unsigned char *)buf, &HELPERS_MEM));
		digest_words(&d, (const unsigned char *)buf, MEMBUF);
		if (Q7_TRACE >= 0) {
			put_dec(i);
			put_str(" ");
			put_hex(p.fill);
			put_str(" ");
			put_hex(p.n);
			put_str(" ");
			put_hex(digest_value(&d));
			flush();
		}
	}
	report(MEM_NAMES[op], &d);
}

#define NROUTINES COUNT(ROUTINES)

static u32 key_of(u32 k)
{
	return stream_key(ROUTINES[k].binary, ROUTINES[k].ga, ROUTINES[k].gb);
}

int main(void)
{
	/* each stream once, for every routine reading it */
	static Digest digests[NROUTINES];
	static unsigned char done[NROUTINES];
	for (u32 k = 0; k < NROUTINES; k++) {
		if (done[k])
			continue;
		u32 group[NROUTINES], g = 0;
		for (u32 j = k; j < NROUTINES; j++)
			if (!done[j] && key_of(j) == key_of(k) && (Q7_TRACE < 0 || j == (u32)Q7_TRACE)) {
				group[g++] = j;
				done[j] = 1;
				digest_init(&digests[j]);
			}
		if (!g)
			continue;
		const Routine *r0 = &ROUTINES[group[0]];
		Cases c;
		cases_init(&c, Q7_SEED, r0->binary, r0->ga, r0->gb);
		for (u32 i = 0; i < Q7_N; i++) {
			u64 x, y;
			cases_next(&c, &x, &y);
			for (u32 m = 0; m < g; m++) {
				u64 v = ROUTINES[group[m]].call(x, y);
				digest_add(&digests[group[m]], v);
				if (Q7_TRACE >= 0) {
					put_dec(i);
					put_str(" ");
					put_hex(x);
					put_str(" ");
					put_hex(y);
					put_str(" ");
					put_hex(v);
					flush();
				}
			}
		}
	}
	for (u32 k = 0; k < NROUTINES; k++)
		if (Q7_TRACE < 0 || k == (u32)Q7_TRACE)
			report(ROUTINES[k].name, &digests[k]);
	for (u32 k = NROUTINES; k < NROUTINES + MEM_COUNT; k++)
		if (Q7_TRACE < 0 || k == (u32)Q7_TRACE)
			run_mem(k);
	return 0;
}
