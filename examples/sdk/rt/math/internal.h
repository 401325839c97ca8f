/* internal.h - the math library's functions shared between its files (README.md in this
 * directory, "Algorithms"). Hidden on the device (the build's -fvisibility=hidden); in the
 * namespace q7m, so host builds keep them apart from the host's names. */
#ifndef Q7_MATH_INTERNAL_H
#define Q7_MATH_INTERNAL_H

#include "fixed.h"

namespace q7m {

/* 2^(k + f / 2^32), relative error below 2^-30 (expf.cpp). */
Wide exp2_wide32(int k, u32 f);

/* log2(m * 2^(e - 23)) for m with bit 23 set, relative error below 2^-56 (powf.cpp). */
Wide log2_wide64(u32 m, int e);

/* 2^(k + f / 2^64), relative error below 2^-61 (exp.cpp). */
Wide exp2_wide64(int k, u64 f);

/* ln x for a positive finite nonzero double given by its bits, relative error below 2^-75
 * (log.cpp). */
Wide128 ln_wide128(u64 a);

} // namespace q7m

#endif
