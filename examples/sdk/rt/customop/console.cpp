/* console.cpp - <stdio.h> on the per-core console ring (CONSOLE_PUTC): one MMIO store per byte.
 * stdout and stderr are the same ring. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <q7/platform.h>

#include "format.h"
#include "rt.h"

struct q7_file {
	int fd;
};
FILE __q7_stdout = {1};
FILE __q7_stderr = {2};

namespace {

/* The last byte written, so that a runtime error starts a line of its own. */
unsigned char last = '\n';

void put(unsigned char c)
{
	Q7_CONSOLE_PUTC = c;
	last = c;
}

void console_sink(void *, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put((unsigned char)s[i]);
}

} // namespace

void q7::rt::console_line_break()
{
	if (last != '\n')
		put('\n');
}

extern "C" {

int vprintf(const char *fmt, va_list ap) { return q7::fmt::vformat(console_sink, nullptr, fmt, ap); }

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int vfprintf(FILE *, const char *fmt, va_list ap) { return vprintf(fmt, ap); }

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) { return q7::fmt::vsnformat(buf, n, fmt, ap); }

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int vsprintf(char *buf, const char *fmt, va_list ap) { return vsnprintf(buf, 0x7FFFFFFF, fmt, ap); }

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vsprintf(buf, fmt, ap);
	va_end(ap);
	return r;
}

int fputs(const char *s, FILE *)
{
	size_t n = 0;
	while (s[n])
		n++;
	console_sink(nullptr, s, n);
	return 0;
}

int puts(const char *s)
{
	fputs(s, stdout);
	put('\n');
	return 0;
}

int putchar(int c)
{
	put((unsigned char)c);
	return (unsigned char)c;
}

int fputc(int c, FILE *) { return putchar(c); }
int putc(int c, FILE *) { return putchar(c); }
int fflush(FILE *) { return 0; }

} // extern "C"
