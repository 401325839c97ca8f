/* stdio.h - the SDK's own: formatted output to this core's console ring (CONSOLE_PUTC).
 * stdout and stderr both write the console; there is no input and no file system. Conversions:
 * d i u o x X c s p % and e E f F g G (exact decimal, round-half-even), flags - + space # 0,
 * width, precision, `*`, and the length modifiers hh h l ll j z t L. */
#ifndef Q7_STDIO_H
#define Q7_STDIO_H

#include <stddef.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct q7_file FILE;
extern FILE __q7_stdout, __q7_stderr;
#define stdout (&__q7_stdout)
#define stderr (&__q7_stderr)
#define EOF (-1)

#define Q7_PRINTF(f, a) __attribute__((format(printf, f, a)))

int printf(const char *fmt, ...) Q7_PRINTF(1, 2);
int vprintf(const char *fmt, va_list ap) Q7_PRINTF(1, 0);
int fprintf(FILE *f, const char *fmt, ...) Q7_PRINTF(2, 3);
int vfprintf(FILE *f, const char *fmt, va_list ap) Q7_PRINTF(2, 0);
int sprintf(char *buf, const char *fmt, ...) Q7_PRINTF(2, 3);
int vsprintf(char *buf, const char *fmt, va_list ap) Q7_PRINTF(2, 0);
int snprintf(char *buf, size_t n, const char *fmt, ...) Q7_PRINTF(3, 4);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) Q7_PRINTF(3, 0);
int puts(const char *s);
int fputs(const char *s, FILE *f);
int putchar(int c);
int fputc(int c, FILE *f);
int putc(int c, FILE *f);
int fflush(FILE *f);

#undef Q7_PRINTF

#ifdef __cplusplus
}
#endif

#endif
