/* inttypes.h - the SDK's own: printf format macros for the <stdint.h> types. */
#ifndef Q7_INTTYPES_H
#define Q7_INTTYPES_H

#include <stdint.h>

#if __SIZEOF_LONG__ == 8
#define Q7_PRI64 "l"
#define Q7_PRIPTR "l"
#else
#define Q7_PRI64 "ll"
#define Q7_PRIPTR ""
#endif

#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 Q7_PRI64 "d"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 Q7_PRI64 "i"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 Q7_PRI64 "u"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 Q7_PRI64 "x"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 Q7_PRI64 "X"
#define PRIo32 "o"
#define PRIo64 Q7_PRI64 "o"
#define PRIdMAX Q7_PRI64 "d"
#define PRIuMAX Q7_PRI64 "u"
#define PRIxMAX Q7_PRI64 "x"
#define PRIdPTR Q7_PRIPTR "d"
#define PRIuPTR Q7_PRIPTR "u"
#define PRIxPTR Q7_PRIPTR "x"

#endif
