/* fatal.cpp - the runtime-error path (PLATFORM.md "Runtime errors"): one console line
 * "q7 runtime error: <what>" (on a line of its own: a line the kernel left unfinished is ended
 * first), then the code to MBOX_ABORT, which stops the core. Also abort(), exit() and the
 * assert hook. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <q7/customop_abi.h>
#include <q7/platform.h>

#include "format.h"
#include "rt.h"

extern "C" {

void q7_fatal(int code, const char *fmt, ...)
{
	q7::rt::console_line_break();
	fputs(Q7_ERROR_PREFIX, stdout);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	__asm__ volatile("memw" ::: "memory");
	Q7_MBOX_ABORT = (unsigned)code;
	for (;;)
		__asm__ volatile("memw" ::: "memory");
}

void __q7_assert_fail(const char *expr, const char *file, int line, const char *func)
{
	q7_fatal(Q7_ERR_ASSERT, "assertion failed: %s (%s:%d, %s)", expr, file, line, func);
}

void abort(void) { q7_fatal(Q7_ERR_ABORT, "abort() called"); }

void exit(int status) { q7_fatal(Q7_ERR_ABORT, "exit(%d) called: a kernel returns its result instead", status); }

} // extern "C"
