// ReLU in place through stream accessors: a read stream and a write stream open on the input at
// once, the result written back over it and returned.
//
// relu_inplace keeps the default coherence policy, COHERENT: a write stream opened while a read
// stream is open on the same tensor may be incoherent (the write stream's buffer may reach the
// tensor before the read stream has read what it overwrites), so the runtime stops the kernel
// there, naming the tensor and both streams.
//
// relu_inplace_quiet sets INCOHERENT_QUIET first: it knows every element is read before it is
// written (the write stream trails the read stream by whole elements), so the pair is safe here
// and the kernel runs to its end.
#include <stdint.h>
#include <torch/torch.h>

namespace {

torch::Tensor relu_over_streams(torch::Tensor t)
{
	auto in = t.read_stream_accessor<float>();
	auto out = t.write_stream_accessor<float>();
	for (int64_t i = 0; i < t.numel(); i++) {
		float x = in.read();
		out.write(x > 0.0 ? x : 0.0);
	}
	return t;
}

} // namespace

torch::Tensor relu_inplace(const torch::Tensor &t_in) { return relu_over_streams(t_in); }

torch::Tensor relu_inplace_quiet(const torch::Tensor &t_in)
{
	t_in.set_accessor_coherence_policy(torch::CoherencyEnforcer::Policy::INCOHERENT_QUIET);
	return relu_over_streams(t_in);
}
