// check.h - the native test programs' one assertion: counts checks, prints each failure with
// its line, and main's return value reports whether any failed.
#ifndef Q7_NATIVE_CHECK_H
#define Q7_NATIVE_CHECK_H

#include <stdio.h>

static int checks_run, checks_failed;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		checks_run++;                                                          \
		if (!(cond)) {                                                         \
			checks_failed++;                                               \
			printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
		}                                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                                        \
	do {                                                                                  \
		checks_run++;                                                                 \
		unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b); \
		if (va_ != vb_) {                                                             \
			checks_failed++;                                                      \
			printf("FAILED %s:%d: %s == %s (0x%llx != 0x%llx)\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
		}                                                                             \
	} while (0)

static int report(void)
{
	printf("%d checks, %d failed\n", checks_run, checks_failed);
	return checks_failed != 0;
}

#endif
