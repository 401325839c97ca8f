/* format.h - the printf engine behind printf, snprintf and the runtime's error lines. Free of
 * device code (tested natively against the host C library). Floating-point conversions are
 * exact: the double's binary value is expanded to all of its decimal digits with integer
 * arithmetic and rounded half to even, so no soft-float routine is involved. */
#ifndef Q7_RT_FORMAT_H
#define Q7_RT_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

namespace q7 {
namespace fmt {

/* Receives `n` bytes of output. */
typedef void (*Sink)(void *ctx, const char *s, size_t n);

/* Formats like vprintf; the number of bytes produced. */
int vformat(Sink sink, void *ctx, const char *fmt, va_list ap);

/* vsnprintf's contract on top of vformat. */
int vsnformat(char *buf, size_t n, const char *fmt, va_list ap);

} // namespace fmt
} // namespace q7

#endif
