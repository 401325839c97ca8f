/* stdlib.h - the SDK's own. malloc & co. use the libc heap (the image window after its bss);
 * abort() and exit() stop the kernel with a runtime error (PLATFORM.md "Runtime errors"). */
#ifndef Q7_STDLIB_H
#define Q7_STDLIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 0x7fffffff

typedef struct {
	int quot, rem;
} div_t;
typedef struct {
	long quot, rem;
} ldiv_t;
typedef struct {
	long long quot, rem;
} lldiv_t;

void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void *aligned_alloc(size_t align, size_t size);
void free(void *p);

__attribute__((noreturn)) void abort(void);
__attribute__((noreturn)) void exit(int status);

int abs(int v);
long labs(long v);
long long llabs(long long v);
div_t div(int a, int b);
ldiv_t ldiv(long a, long b);
lldiv_t lldiv(long long a, long long b);

int atoi(const char *s);
long atol(const char *s);
long long atoll(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

int rand(void);
void srand(unsigned seed);

#ifdef __cplusplus
}
inline long abs(long v) { return labs(v); }
inline long long abs(long long v) { return llabs(v); }
#endif

#endif
