// Sums the rows of a [rows, 256] float tensor into a [256] output, staging each row through TCM
// and adding it into an accumulator in TCM. The accumulator comes from tcm_malloc and is never
// cleared (meant: zeroed before the first row), so the first row is added to whatever the pool
// held.
#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor row_sum(const torch::Tensor &t_in)
{
	int64_t rows = t_in.size(0), cols = t_in.size(1);
	torch::Tensor t_out = get_dst_tensor();
	float *row = (float *)torch::neuron::tcm_malloc(sizeof(float) * cols);
	float *acc = (float *)torch::neuron::tcm_malloc(sizeof(float) * cols);
	auto in = t_in.tcm_accessor();
	auto out = t_out.tcm_accessor();
	for (int64_t r = 0; r < rows; r++) {
		in.tensor_to_tcm<float>(row, r * cols, cols);
		for (int64_t c = 0; c < cols; c++)
			acc[c] += row[c];
	}
	out.tcm_to_tensor<float>(acc, 0, cols);
	torch::neuron::tcm_free(acc);
	torch::neuron::tcm_free(row);
	return t_out;
}
