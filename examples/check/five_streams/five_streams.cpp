// Multiplies a float tensor by 4 by reading it through four read streams and writing the sum
// through a fifth, a write stream. The API allows four active streams: the runtime has four
// stream buffers, so the fifth stream gets none and writes the output element by element.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor four_times(const torch::Tensor &t_in)
{
	torch::Tensor t_out = get_dst_tensor();
	auto a = t_in.read_stream_accessor<float>();
	auto b = t_in.read_stream_accessor<float>();
	auto c = t_in.read_stream_accessor<float>();
	auto d = t_in.read_stream_accessor<float>();
	auto out = t_out.write_stream_accessor<float>();
	for (int64_t i = 0; i < t_in.numel(); i++)
		out.write(a.read() + b.read() + c.read() + d.read());
	return t_out;
}
