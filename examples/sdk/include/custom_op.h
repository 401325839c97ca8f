// custom_op.h - the seeds' spelling of a kernel's include: the whole device API.
#ifndef Q7_CUSTOM_OP_H
#define Q7_CUSTOM_OP_H
#include <neuron/wrapper_api.h>
#endif
