// ATen/core/CoherencyEnforcer.h - `torch::CoherencyEnforcer::Policy`, what a tensor does when
// an accessor is opened on it in a way that may be incoherent with another one open on it
// (examples/sdk/README.md "Stream accessors and coherence"): a stream together with an element
// accessor or another stream, except several read streams. Set per tensor with
// `Tensor::set_accessor_coherence_policy`; COHERENT by default.
#ifndef Q7_ATEN_COHERENCYENFORCER_H
#define Q7_ATEN_COHERENCYENFORCER_H

namespace at {

class CoherencyEnforcer {
public:
	enum Policy {
		// Possibly incoherent access stops the kernel with a runtime error (the default).
		COHERENT,
		// Possibly incoherent access is allowed, with a warning on the console.
		INCOHERENT_VERBOSE,
		// Possibly incoherent access is allowed, with neither error nor warning.
		INCOHERENT_QUIET
	};
};

} // namespace at

#endif
