// The coherence policy (examples/sdk/README.md "Stream accessors and coherence"): op `cohere`
// sets the policy `policy` on its float32 argument x (of at least 2 elements), then holds two
// accesses to it open at once, by `pair`; it prints "done" and returns x.
//   0 element accessor, then read stream     1 read stream, then element accessor
//   2 element accessor, then write stream    3 write stream, then element accessor
//   4 read stream, then write stream         5 write stream, then read stream
//   6 write stream, then write stream        7 read stream, then read stream
//   8 element accessor, then element accessor
//   9 TCM accessor, then write stream        10 write stream, then item()
//   11 read stream, then fill_()
//   12 pair 4 on the output (get_dst_tensor)  13 pair 4 on a tensor the kernel makes
//   14 element accessor destroyed, then write stream
//   15 element accessor and a copy, the copy destroyed, then write stream
// (10 and 13 print where the tensor they make is: "made at 0x…").
// Op `policy_of` prints the policy of a fresh tensor, sets `policy` and prints it again.
#include <stdint.h>
#include <stdio.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor cohere(const torch::Tensor &x, int64_t pair, int64_t policy)
{
	torch::Tensor t = x;
	if (pair == 12)
		t = get_dst_tensor();
	if (pair == 13) {
		t = torch::zeros({4}, torch::kFloat);
		printf("made at 0x%llx\n", (unsigned long long)t.q7_data_ptr().addr);
	}
	t.set_accessor_coherence_policy(torch::CoherencyEnforcer::Policy(policy));
	switch (pair) {
	case 0: {
		auto e = t.accessor<float, 1>();
		auto r = t.read_stream_accessor<float>();
		r.read();
		e[0] = 1.0f;
		break;
	}
	case 1: {
		auto r = t.read_stream_accessor<float>();
		auto e = t.accessor<float, 1>();
		e[0] = r.read();
		break;
	}
	case 2: {
		auto e = t.accessor<float, 1>();
		auto w = t.write_stream_accessor<float>();
		w.write(e[1]);
		break;
	}
	case 3: {
		auto w = t.write_stream_accessor<float>();
		auto e = t.accessor<float, 1>();
		w.write(e[1]);
		break;
	}
	case 4:
	case 12:
	case 13: {
		auto r = t.read_stream_accessor<float>();
		auto w = t.write_stream_accessor<float>();
		w.write(r.read());
		break;
	}
	case 5: {
		auto w = t.write_stream_accessor<float>();
		auto r = t.read_stream_accessor<float>();
		w.write(r.read());
		break;
	}
	case 6: {
		auto w1 = t.write_stream_accessor<float>();
		auto w2 = t.write_stream_accessor<float>();
		w1.write(1.0f);
		w2.write(2.0f);
		break;
	}
	case 7: {
		auto r1 = t.read_stream_accessor<float>();
		auto r2 = t.read_stream_accessor<float>();
		r1.read();
		r2.read();
		break;
	}
	case 8: {
		auto e1 = t.accessor<float, 1>();
		auto e2 = t.accessor<float, 1>();
		e1[0] = e2[1];
		break;
	}
	case 9: {
		float buf[2];
		auto c = t.tcm_accessor();
		auto w = t.write_stream_accessor<float>();
		c.tensor_to_tcm<float>(buf, 0, 2);
		w.write(buf[1]);
		break;
	}
	case 10: {
		torch::Tensor one = torch::ones({1}, torch::kFloat);
		printf("made at 0x%llx\n", (unsigned long long)one.q7_data_ptr().addr);
		one.set_accessor_coherence_policy(torch::CoherencyEnforcer::Policy(policy));
		auto w = one.write_stream_accessor<float>();
		w.write(one.item<float>());
		break;
	}
	case 11: {
		auto r = t.read_stream_accessor<float>();
		t.fill_(r.read());
		break;
	}
	case 14: {
		{
			auto e = t.accessor<float, 1>();
			e[0] = 1.0f;
		}
		auto w = t.write_stream_accessor<float>();
		w.write(2.0f);
		break;
	}
	case 15: {
		auto e = t.accessor<float, 1>();
		{
			auto copy = e;
			copy[0] = 1.0f;
		}
		auto w = t.write_stream_accessor<float>();
		w.write(e[1]);
		break;
	}
	default:
		abort();
	}
	printf("done\n");
	return x;
}

torch::Tensor policy_of(const torch::Tensor &x, int64_t policy)
{
	torch::Tensor t = torch::zeros({1}, torch::kFloat);
	printf("policy %d", int(t.get_accessor_coherence_policy()));
	t.set_accessor_coherence_policy(torch::CoherencyEnforcer::Policy(policy));
	printf(", then %d\n", int(t.get_accessor_coherence_policy()));
	return x;
}
