// Row-wise ReLU of a [rows, cols] tensor on eight cores: each core should take rows / 8
// consecutive rows, but its first row is computed as cpu_id * 1 instead of cpu_id * rows_per_core,
// so neighbouring cores write the same rows and the last rows are never written.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor relu_rows(const torch::Tensor &t_in)
{
	torch::Tensor t_out = get_dst_tensor();
	int64_t rows = t_in.size(0);
	int64_t cols = t_in.size(1);

	int64_t rows_per_core = rows / get_cpu_count();
	int64_t first_row = get_cpu_id() * 1;

	auto in = t_in.accessor<float, 2>();
	auto out = t_out.accessor<float, 2>();
	for (int64_t r = first_row; r < first_row + rows_per_core; r++)
		for (int64_t c = 0; c < cols; c++)
			out[r][c] = in[r][c] > 0.0f ? in[r][c] : 0.0f;
	return t_out;
}
