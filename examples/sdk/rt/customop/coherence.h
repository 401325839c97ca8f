/* coherence.h - which accesses to one tensor may be incoherent (examples/sdk/README.md "Stream
 * accessors and coherence"): a stream caches the tensor in its TCM buffer, so it is possibly
 * incoherent with an element accessor (which reads and writes HBM directly) and with any other
 * stream except when both only read. Element accessors among themselves are coherent; the TCM
 * accessor is not checked at all. Pure and free of device code, so it is also tested natively. */
#ifndef Q7_RT_COHERENCE_H
#define Q7_RT_COHERENCE_H

#include <stdint.h>

namespace q7 {
namespace coherence {

/* What is being done to the tensor. */
enum Access : uint32_t {
	OPEN_ELEMENT,      /* an element accessor is opened (item() and fill_() count as one) */
	OPEN_READ_STREAM,
	OPEN_WRITE_STREAM,
};

/* What is open on the tensor, by kind. */
struct Open {
	uint32_t elements;
	uint32_t reads;
	uint32_t writes;
};

/* The open accessor that makes `a` possibly incoherent, the most hazardous first. */
enum Conflict : uint32_t {
	NONE,
	WITH_WRITE_STREAM,
	WITH_READ_STREAM,
	WITH_ELEMENT,
};

inline Conflict check(const Open &o, Access a)
{
	if (o.writes)
		return WITH_WRITE_STREAM;
	if (a != OPEN_READ_STREAM && o.reads)
		return WITH_READ_STREAM;
	if (a != OPEN_ELEMENT && o.elements)
		return WITH_ELEMENT;
	return NONE;
}

/* The open accessor `c` names. */
inline const char *open_one(Conflict c)
{
	return c == WITH_WRITE_STREAM ? "a write stream" : c == WITH_READ_STREAM ? "a read stream" : "an element accessor";
}

/* The policies, in CoherencyEnforcer::Policy's order. */
constexpr uint32_t POLICIES = 3;
inline const char *policy_name(uint32_t p)
{
	return p == 0 ? "COHERENT" : p == 1 ? "INCOHERENT_VERBOSE" : p == 2 ? "INCOHERENT_QUIET" : "?";
}

} // namespace coherence
} // namespace q7

#endif
