/* Switch tables, struct copies, bit manipulation and string routines. */
#include "testio.h"

typedef unsigned int size_t;
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

struct rec {
	int id;
	char name[13];
	short w[5];
	unsigned char flags;
	long long big;
};

static volatile int vol;

__attribute__((noinline)) static int dispatch(int k)
{
	switch (k) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 59;
	case 5: return 61;
	case 6: return 79;
	case 7: return 83;
	case 9: return 97;
	case 12: return 101;
	default: return -k;
	}
}

__attribute__((noinline)) static struct rec make(int i)
{
	struct rec r;
	memset(&r, 0, sizeof r);
	r.id = i * 7;
	for (int k = 0; k < 12; k++)
		r.name[k] = (char)('a' + (i + k) % 26);
	for (int k = 0; k < 5; k++)
		r.w[k] = (short)(i * 1000 - k * 333);
	r.flags = (unsigned char)(i ^ 0xa5);
	r.big = (long long)i * 0x123456789ll;
	return r;
}

static unsigned int popcount(unsigned int v)
{
	unsigned int c = 0;
	while (v) {
		v &= v - 1;
		c++;
	}
	return c;
}

static unsigned int reverse(unsigned int v)
{
	unsigned int r = 0;
	for (int i = 0; i < 32; i++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

int main(void)
{
	unsigned int h = 0;
	for (int k = -3; k < 20; k++)
		h = h * 7 + (unsigned int)dispatch(k);
	put_hex("switch", h);

	struct rec a[8], b[8];
	for (int i = 0; i < 8; i++)
		a[i] = make(i);
	memcpy(b, a, sizeof a);
	struct rec t = b[3];
	b[3] = b[5];
	b[5] = t;
	h = 0;
	for (int i = 0; i < 8; i++) {
		const unsigned char *p = (const unsigned char *)&b[i];
		for (size_t k = 0; k < sizeof b[i]; k++)
			h = h * 131 + p[k];
	}
	put_hex("structs", h);
	put_hex("cmp", (unsigned int)memcmp(&a[3], &b[5], sizeof a[3]) + 5 * (unsigned int)(memcmp(&a[3], &b[3], sizeof a[3]) != 0));

	h = 0;
	for (unsigned int v = 1; v < 5000; v = v * 3 + 1) {
		h += popcount(v) + reverse(v) + (v & -v) + ((v >> 3) | (v << 29)) + (unsigned int)(signed char)v
			+ (unsigned int)(short)(v * 977);
	}
	put_hex("bits", h);

	const char *words[] = { "window", "overflow", "underflow", "", "xtensa-vision-q7", "pool" };
	char buf[64];
	h = 0;
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(words[i]);
		memcpy(buf, words[i], n + 1);
		for (size_t k = 0; k < n; k++)
			if (buf[k] >= 'a' && buf[k] <= 'z')
				buf[k] = (char)(buf[k] - 32);
		h = h * 17 + (unsigned int)n + (unsigned char)buf[n ? n - 1 : 0];
	}
	put_hex("strings", h);
	vol = (int)h;
	return 7;
}
