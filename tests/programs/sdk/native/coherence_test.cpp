// The coherence rules (examples/sdk/rt/customop/coherence.h): a stream is possibly incoherent
// with an element accessor and with any other stream unless both read; element accessors are
// coherent among themselves; the most hazardous open accessor is the one named.
#include <string.h>
#include "coherence.h"
#include "check.h"

using namespace q7::coherence;

int main()
{
	const Open nothing{0, 0, 0}, elements{2, 0, 0}, reads{0, 3, 0}, write{0, 0, 1}, all{1, 1, 1};

	// Nothing open: every access is coherent.
	CHECK_EQ(check(nothing, OPEN_ELEMENT), NONE);
	CHECK_EQ(check(nothing, OPEN_READ_STREAM), NONE);
	CHECK_EQ(check(nothing, OPEN_WRITE_STREAM), NONE);

	// Element accessors: with each other yes, with any stream no.
	CHECK_EQ(check(elements, OPEN_ELEMENT), NONE);
	CHECK_EQ(check(reads, OPEN_ELEMENT), WITH_READ_STREAM);
	CHECK_EQ(check(write, OPEN_ELEMENT), WITH_WRITE_STREAM);

	// Read streams: with each other yes, with an element accessor or a write stream no.
	CHECK_EQ(check(reads, OPEN_READ_STREAM), NONE);
	CHECK_EQ(check(elements, OPEN_READ_STREAM), WITH_ELEMENT);
	CHECK_EQ(check(write, OPEN_READ_STREAM), WITH_WRITE_STREAM);

	// A write stream: with nothing else open.
	CHECK_EQ(check(elements, OPEN_WRITE_STREAM), WITH_ELEMENT);
	CHECK_EQ(check(reads, OPEN_WRITE_STREAM), WITH_READ_STREAM);
	CHECK_EQ(check(write, OPEN_WRITE_STREAM), WITH_WRITE_STREAM);

	// Everything open: the write stream is named first, then a read stream.
	CHECK_EQ(check(all, OPEN_ELEMENT), WITH_WRITE_STREAM);
	CHECK_EQ(check(Open{1, 1, 0}, OPEN_WRITE_STREAM), WITH_READ_STREAM);

	// The words of the messages, and the policies in CoherencyEnforcer::Policy's order.
	CHECK(strcmp(open_one(WITH_ELEMENT), "an element accessor") == 0);
	CHECK(strcmp(open_one(WITH_WRITE_STREAM), "a write stream") == 0);
	CHECK(strcmp(policy_name(0), "COHERENT") == 0);
	CHECK(strcmp(policy_name(1), "INCOHERENT_VERBOSE") == 0);
	CHECK(strcmp(policy_name(2), "INCOHERENT_QUIET") == 0);
	CHECK_EQ(POLICIES, 3u);
	return report();
}
