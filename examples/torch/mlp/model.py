# The MLP of the example: three linear layers for 28x28 inputs and 10 classes, the custom ReLU
# (my_ops.py, run on the emulated cores) after the first two.
import torch
import torch.nn as nn

import my_ops


class MLP(nn.Module):
    def __init__(self, input_size=28 * 28, output_size=10, layers=(120, 84)):
        super().__init__()
        self.fc1 = nn.Linear(input_size, layers[0])
        self.fc2 = nn.Linear(layers[0], layers[1])
        self.fc3 = nn.Linear(layers[1], output_size)

    def forward(self, x):
        h = my_ops.Relu.apply(self.fc1(x))
        h = my_ops.Relu.apply(self.fc2(h))
        return torch.log_softmax(self.fc3(h), dim=1)
