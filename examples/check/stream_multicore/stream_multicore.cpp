// relu_stream's kernel built for eight cores: a read stream over the input and a write stream
// over the output. Streams are defined for single-core ops only; a stream always covers its
// whole tensor from element 0, so every core reads all of t_in and writes all of the output.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_forward(const torch::Tensor &t_in)
{
	torch::Tensor t_out = get_dst_tensor();
	auto in = t_in.read_stream_accessor<float>();
	auto out = t_out.write_stream_accessor<float>();
	for (int64_t i = 0; i < t_in.numel(); i++) {
		float x = in.read();
		out.write(x > 0.0f ? x : 0.0f);
	}
	return t_out;
}
