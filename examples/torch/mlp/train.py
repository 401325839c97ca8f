"""Trains the example's MLP (model.py) for a few steps on CPU PyTorch, twice from the same
initial weights: once with the custom ReLU, whose forward and backward ops run on the
emulated cores, and once with torch.relu. Each step prints both losses, whether they are
equal, and the emulated cycles of the step's ReLU runs (two forward, two backward).

The data is generated: 28x28 inputs uniform in [0, 1) and labels from a fixed random linear
map of them, so nothing is downloaded. Run it in this directory after build.py:

    python build.py && python train.py

Exits 1 when a loss differs from torch.relu's. ``--json`` prints one JSON object per step.
"""

import argparse
import json
import sys

import torch
import torch.nn.functional as F

import q7emu
from model import MLP


class TorchReluMLP(MLP):
    """The same MLP with torch.relu."""

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = torch.relu(self.fc2(h))
        return torch.log_softmax(self.fc3(h), dim=1)


def batches(steps, batch, seed=0):
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(28 * 28, 10, generator=g)
    for _ in range(steps):
        x = torch.rand(batch, 28 * 28, generator=g)
        yield x, (x @ teacher).argmax(dim=1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--json", action="store_true", help="one JSON object per step")
    args = p.parse_args(argv)

    torch.manual_seed(0)
    custom, reference = MLP(), TorchReluMLP()
    reference.load_state_dict(custom.state_dict())
    opt_c = torch.optim.SGD(custom.parameters(), lr=args.lr)
    opt_r = torch.optim.SGD(reference.parameters(), lr=args.lr)
    differ = 0
    for step, (x, y) in enumerate(batches(args.steps, args.batch)):
        with q7emu.record() as runs:
            opt_c.zero_grad()
            loss = F.nll_loss(custom(x), y)
            loss.backward()
            opt_c.step()
        opt_r.zero_grad()
        ref = F.nll_loss(reference(x), y)
        ref.backward()
        opt_r.step()
        equal = torch.equal(loss.detach(), ref.detach())
        differ += not equal
        cycles = sum(r.cycles for r in runs)
        if args.json:
            print(json.dumps({"step": step, "loss": loss.item(), "torch_relu_loss": ref.item(),
                              "equal": equal, "runs": [r.report["op"] for r in runs],
                              "cores": max(len(r.cores) for r in runs), "cycles": cycles}),
                  flush=True)
        else:
            print(f"step {step}: loss {loss.item():.6f}, with torch.relu {ref.item():.6f} "
                  f"({'equal' if equal else 'DIFFERENT'}); {len(runs)} ReLU runs on "
                  f"{max(len(r.cores) for r in runs)} core(s), {cycles} emulated cycles",
                  flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
