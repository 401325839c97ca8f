/* libc.cpp - the <string.h> and <stdlib.h> pieces that are the runtime's (memcpy, memset,
 * memmove, memcmp, strlen, operator new/delete and std::nothrow are the compiler helper
 * routines'). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = static_cast<const unsigned char *>(s);
	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return const_cast<unsigned char *>(p + i);
	return nullptr;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strcpy(char *dst, const char *src)
{
	char *d = dst;
	while ((*d++ = *src++))
		;
	return dst;
}

char *strncpy(char *dst, const char *src, size_t n)
{
	size_t i = 0;
	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

char *strcat(char *dst, const char *src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

char *strncat(char *dst, const char *src, size_t n)
{
	char *d = dst + strlen(dst);
	size_t i = 0;
	for (; i < n && src[i]; i++)
		d[i] = src[i];
	d[i] = 0;
	return dst;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return const_cast<char *>(s);
		if (!*s)
			return nullptr;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = nullptr;
	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return const_cast<char *>(last);
	}
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return const_cast<char *>(hay);
	for (; *hay; hay++)
		if (*hay == *needle && strncmp(hay, needle, n) == 0)
			return const_cast<char *>(hay);
	return nullptr;
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = static_cast<char *>(malloc(n));
	if (p)
		memcpy(p, s, n);
	return p;
}

int abs(int v) { return v < 0 ? -v : v; }
long labs(long v) { return v < 0 ? -v : v; }
long long llabs(long long v) { return v < 0 ? -v : v; }
div_t div(int a, int b) { return div_t{a / b, a % b}; }
ldiv_t ldiv(long a, long b) { return ldiv_t{a / b, a % b}; }
lldiv_t lldiv(long long a, long long b) { return lldiv_t{a / b, a % b}; }

/* strtoull's digits: the value (saturated at `limit`, with *over set past it). */
static unsigned long long parse(const char *s, char **end, int base, bool *neg, bool *over, unsigned long long limit)
{
	const char *p = s;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	*neg = false;
	*over = false;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	unsigned long long v = 0;
	const char *digits = p;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9'   ? *p - '0'
			: *p >= 'a' && *p <= 'z' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'Z' ? *p - 'A' + 10
						 : 99;
		if (d >= base)
			break;
		if (v > (limit - unsigned(d)) / unsigned(base))
			*over = true;
		else
			v = v * unsigned(base) + unsigned(d);
	}
	if (end)
		*end = const_cast<char *>(p == digits ? s : p);
	return *over ? limit : v;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	bool neg, over;
	unsigned long long v = parse(s, end, base, &neg, &over, ~0ull);
	return neg ? 0 - v : v;
}

long long strtoll(const char *s, char **end, int base)
{
	bool neg, over;
	unsigned long long max = 0x7FFFFFFFFFFFFFFFull;
	unsigned long long v = parse(s, end, base, &neg, &over, max);
	if (neg)
		return over ? -0x7FFFFFFFFFFFFFFFll - 1 : -(long long)v;
	return (long long)v;
}

long strtol(const char *s, char **end, int base)
{
	long long v = strtoll(s, end, base);
	if (v > 0x7FFFFFFFL && sizeof(long) == 4)
		return 0x7FFFFFFFL;
	if (v < -0x7FFFFFFFL - 1 && sizeof(long) == 4)
		return -0x7FFFFFFFL - 1;
	return long(v);
}

unsigned long strtoul(const char *s, char **end, int base)
{
	unsigned long long v = strtoull(s, end, base);
	if (sizeof(long) == 4 && v > 0xFFFFFFFFull && v < ~0ull - 0xFFFFFFFFull)
		return 0xFFFFFFFFul;
	return (unsigned long)v;
}

int atoi(const char *s) { return int(strtol(s, nullptr, 10)); }
long atol(const char *s) { return strtol(s, nullptr, 10); }
long long atoll(const char *s) { return strtoll(s, nullptr, 10); }

/* Heapsort on bytes: in place, no allocation. */
static void swap_bytes(unsigned char *a, unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *a = static_cast<unsigned char *>(base);
	auto sift = [&](size_t root, size_t len) {
		for (;;) {
			size_t child = 2 * root + 1;
			if (child >= len)
				return;
			if (child + 1 < len && cmp(a + child * size, a + (child + 1) * size) < 0)
				child++;
			if (cmp(a + root * size, a + child * size) >= 0)
				return;
			swap_bytes(a + root * size, a + child * size, size);
			root = child;
		}
	};
	for (size_t i = n / 2; i-- > 0;)
		sift(i, n);
	for (size_t end = n; end-- > 1;) {
		swap_bytes(a, a + end * size, size);
		sift(0, end);
	}
}

void *bsearch(const void *key, const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const unsigned char *a = static_cast<const unsigned char *>(base);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, a + mid * size);
		if (c == 0)
			return const_cast<unsigned char *>(a + mid * size);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return nullptr;
}

/* A 31-bit linear congruential generator; srand(1) is the initial state, as in C. */
static uint32_t rand_state = 1;
int rand(void)
{
	rand_state = rand_state * 1103515245u + 12345u;
	return int((rand_state >> 1) & 0x7FFFFFFF);
}
void srand(unsigned seed) { rand_state = seed; }

} // extern "C"
