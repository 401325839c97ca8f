// Stream accessors as kernels use them (examples/sdk/README.md "Stream accessors and
// coherence"), the ops of tests/tests/sdk_streams.rs.
#include <stdint.h>
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

namespace {

// y = a·x + b through one read stream and one write stream, in the tensor's own dtype.
template <typename T> void affine_stream(const torch::Tensor &x, torch::Tensor &y, T a, T b)
{
	auto in = x.read_stream_accessor<T>();
	auto out = y.write_stream_accessor<T>();
	for (int64_t i = 0; i < x.numel(); i++)
		out.write(T(a * in.read() + b));
}

} // namespace

// 2x + 1 (float32, float16 through float), 3x - 7 (integers, wrapping), element by element in
// storage order.
torch::Tensor stream_affine(const torch::Tensor &x)
{
	torch::Tensor y = torch::empty_like(x);
	switch (x.scalar_type()) {
	case torch::kFloat:
		affine_stream<float>(x, y, 2.0f, 1.0f);
		break;
	case torch::kLong:
		affine_stream<int64_t>(x, y, 3, -7);
		break;
	case torch::kInt:
		affine_stream<int32_t>(x, y, 3, -7);
		break;
	case torch::kShort:
		affine_stream<int16_t>(x, y, 3, -7);
		break;
	case torch::kByte:
		affine_stream<uint8_t>(x, y, 3, uint8_t(-7));
		break;
	default:
		abort();
	}
	return y;
}

// The tutorial's add: two read streams and a write stream.
torch::Tensor stream_add(const torch::Tensor &a, const torch::Tensor &b)
{
	torch::Tensor out = torch::empty_like(a);
	auto ra = a.read_stream_accessor<float>();
	auto rb = b.read_stream_accessor<float>();
	auto w = out.write_stream_accessor<float>();
	for (int64_t i = 0; i < a.numel(); i++)
		w.write(ra.read() + rb.read());
	return out;
}

// The sum of `n` read streams over x (int32, wrapping), each read whole, element by element in
// turn: n·sum(x). Streams beyond the fourth have no buffer.
torch::Tensor streams_sum(const torch::Tensor &x, int64_t n)
{
	static constexpr int MAX = 8;
	if (n < 1 || n > MAX)
		abort();
	alignas(torch::TensorReadStreamAccessor<int32_t>) unsigned char room[MAX][sizeof(torch::TensorReadStreamAccessor<int32_t>)];
	torch::TensorReadStreamAccessor<int32_t> *s[MAX];
	for (int k = 0; k < n; k++)
		s[k] = new (room[k]) torch::TensorReadStreamAccessor<int32_t>(x.read_stream_accessor<int32_t>());
	uint32_t acc = 0;
	for (int64_t i = 0; i < x.numel(); i++)
		for (int k = 0; k < n; k++)
			acc += uint32_t(s[k]->read());
	for (int k = 0; k < n; k++)
		s[k]->~TensorReadStreamAccessor<int32_t>();
	return torch::full({1}, int64_t(int32_t(acc)), torch::kInt);
}

// The same sum with the element accessor, for the cost of an element.
torch::Tensor element_sum(const torch::Tensor &x)
{
	auto a = x.accessor<int32_t, 1>();
	uint32_t acc = 0;
	for (int64_t i = 0; i < x.numel(); i++)
		acc += uint32_t(a[i]);
	return torch::full({1}, int64_t(int32_t(acc)), torch::kInt);
}

// Stream misuse and the TCM pool, by `what` (int32 x of at least 4 elements; prints what it
// does, returns x):
//   0 read past the end          1 write past the end
//   2 read after close           3 write after close
//   4 close twice: prints both return values
//   5 tcm_malloc(16384), then a stream
//   6 four streams, then tcm_malloc(64); after they close, tcm_malloc(16384)
//   7 write k < numel elements of the output, close, read them back with an element accessor
torch::Tensor stream_misuse(const torch::Tensor &x, int64_t what)
{
	torch::Tensor t = x;
	switch (what) {
	case 0: {
		auto r = x.read_stream_accessor<int32_t>();
		for (int64_t i = 0; i <= x.numel(); i++)
			r.read();
		break;
	}
	case 1: {
		auto w = t.write_stream_accessor<int32_t>();
		for (int64_t i = 0; i <= x.numel(); i++)
			w.write(int32_t(i));
		break;
	}
	case 2: {
		auto r = x.read_stream_accessor<int32_t>();
		r.read();
		r.close();
		r.read();
		break;
	}
	case 3: {
		auto w = t.write_stream_accessor<int32_t>();
		w.write(1);
		w.close();
		w.write(2);
		break;
	}
	case 4: {
		auto r = x.read_stream_accessor<int32_t>();
		int first = r.close();
		int second = r.close();
		printf("close: %d, then %d\n", first, second);
		break;
	}
	case 5: {
		void *all = torch::neuron::tcm_malloc(16384);
		printf("tcm_malloc(16384): %s\n", all ? "a block" : "null");
		auto r = x.read_stream_accessor<int32_t>();
		r.read();
		break;
	}
	case 6: {
		{
			auto a = x.read_stream_accessor<int32_t>();
			auto b = x.read_stream_accessor<int32_t>();
			auto c = x.read_stream_accessor<int32_t>();
			auto d = x.read_stream_accessor<int32_t>();
			printf("with four streams open, tcm_malloc(64): %s\n", torch::neuron::tcm_malloc(64) ? "a block" : "null");
		}
		void *all = torch::neuron::tcm_malloc(16384);
		printf("once they are closed, tcm_malloc(16384): %s\n", all ? "a block" : "null");
		torch::neuron::tcm_free(all);
		break;
	}
	case 7: {
		torch::Tensor out = get_dst_tensor();
		int64_t k = x.numel() - 3;
		{
			auto w = out.write_stream_accessor<int32_t>();
			for (int64_t i = 0; i < k; i++)
				w.write(int32_t(i * i));
			printf("close: %d\n", w.close());
		}
		auto a = out.accessor<int32_t, 1>();
		printf("out[%lld] = %d, out[%lld] = %d\n", (long long)(k - 1), a[k - 1], (long long)k, a[k]);
		break;
	}
	default:
		abort();
	}
	return x;
}
