# The op wrapper of the MLP example: loads librelu.so (build.py) and makes its two ops one
# differentiable ReLU. Only the import of custom_op differs from the Trainium version.
import torch

from q7emu.torch import custom_op

custom_op.load_library('librelu.so')


class Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.ops.my_ops.relu_forward(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return torch.ops.my_ops.relu_backward(grad_out, x), None
