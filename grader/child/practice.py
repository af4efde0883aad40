"""A drill the zygote runs once before it forks any child: torch's modules,
operations and autograd, and the requests of ``ops``, the way the checks
use them (float32 and float64, train and eval mode, backward, views, a batch
of requests across the protocol).

Why: a child is a fork of the zygote, and whatever torch and Python set up
lazily on first use (dispatch, kernels, the interpreter's specialised
bytecode of nn.Module's machinery) a child inherits if the zygote did it, or
pays for again otherwise: measured, a child's first batch of module
requests took twice as long without the drill.

The drill computes nothing of the course: its layers are put together in no
order an exercise asks for (it ships in the student edition with the rest
of ``grader/child``, which never holds an answer).
"""

import torch
import torch.nn as nn
from torch.nn import functional as F

from grader.child import ops, protocol, standins


class Drill(nn.Module):
    """Every kind of layer the course's modules hold, in an order of no use."""

    def __init__(self, n: int, vocab: int = 5, rate: float = 0.0):
        super().__init__()
        self.plain = nn.Linear(n, n, bias=False)
        self.biased = nn.Linear(n, n)
        self.table = nn.Embedding(vocab, n)
        self.norm = nn.LayerNorm(n)
        self.drop = nn.Dropout(rate)
        self.stack = nn.Sequential(nn.Linear(n, 2 * n), nn.ReLU(), nn.Linear(2 * n, n), nn.Dropout(rate))
        self.parts = nn.ModuleList([standins.Block(n, 1, 8, rate), standins.Attention(n, 1, 8, rate)])
        self.register_buffer("upper", torch.ones(8, 8).triu())

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None):
        if not x.is_floating_point():
            x = self.table(x) + self.table(torch.arange(x.shape[-1]) % self.table.num_embeddings)
        T = x.shape[-2]
        y = self.norm(self.stack(self.plain(x)) + self.parts[0](x) + self.parts[1](x))
        s = (y @ self.biased(x).transpose(-2, -1)).masked_fill(self.upper[:T, :T] == 0, float("-inf"))
        out = self.drop(torch.softmax(s, dim=-2)) @ y
        out = torch.cat([out, F.softmax(out, dim=-1)], dim=-1)
        if labels is not None:
            flat = out.view(-1, out.shape[-1])
            return out, F.cross_entropy(flat, labels.reshape(-1) % flat.shape[-1])
        return out, None

    @torch.no_grad()
    def generate(self, ids: torch.Tensor, steps: int) -> torch.Tensor:
        while steps > 0:
            out, _ = self(ids[:, -4:])
            drawn = torch.multinomial(F.softmax(out[:, 0, : self.table.num_embeddings], dim=-1), num_samples=1)
            ids, steps = torch.cat((ids, drawn), dim=1), steps - 1
        return ids


def mixed(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (torch.softmax(a, dim=-1).unsqueeze(-2) @ b).squeeze(-2) * 2**-0.5


def run() -> None:
    """Every kind of request once, through the protocol as a child gets them."""
    requests = []
    for dtype in (None, torch.float64):
        for train in (False, True):
            for x in (torch.randn(2, 3, 4), torch.randn(2, 4, 3).mT, torch.randn(1, 3, 4).expand(2, 3, 4)):
                x = x if dtype is None else x.to(dtype)
                requests.append(ops.module("Drill", init=[4, 5, 0.5], inputs=[x], train=train, backward=True, dtype=dtype))
        idx = torch.zeros(2, 3, dtype=torch.long)
        requests.append(ops.module("Drill", init=[4], inputs=[[idx, idx]], backward=True, backward_through=1, tuple_out=True, dtype=dtype))
    requests.append(ops.module("Drill", init=[4], inputs=[[idx, 3]], method="generate", seed=1))
    requests.append(ops.call_backward("mixed", torch.randn(2, 3), torch.randn(2, 3, 2)))
    requests.append(ops.call("mixed", torch.randn(3, 2).mT, torch.randn(2, 3, 2, dtype=torch.float64).float()))
    requests.append(ops.example(["d = Drill(4)", "d(torch.zeros(1, 3, 4))[0].shape"], [1]))
    batch = protocol.decode(protocol.encode(ops.batch(requests), layouts=True)[8:])
    namespace = type(torch)("practice")
    namespace.Drill, namespace.mixed = Drill, mixed
    protocol.encode(ops.execute(namespace, batch))
