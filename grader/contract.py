"""The parameters each module of the course has, by contract name and shape.

Checks load these (random, reproducible) values into both the reference and
the submission, so that the two compute with the same weights; names and
shapes are the contract from the exercises' docstrings.
"""
import torch

from grader.checking import random_state


def head_state(n_embd: int, head_size: int, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    shape = (head_size, n_embd)
    return random_state({"key.weight": shape, "query.weight": shape, "value.weight": shape}, seed, dtype)


def mha_state(n_embd: int, n_head: int, seed: int) -> dict:
    """MultiHeadAttention built with the grader's stand-in heads (``MHA_STANDINS``: the same parameter names as Head)."""
    hs = n_embd // n_head
    shapes = {f"heads.{i}.{p}.weight": (hs, n_embd) for i in range(n_head) for p in ("key", "query", "value")}
    shapes.update({"proj.weight": (n_embd, n_embd), "proj.bias": (n_embd,)})
    return random_state(shapes, seed)


def ffwd_state(n_embd: int, seed: int) -> dict:
    return random_state(
        {"net.0.weight": (4 * n_embd, n_embd), "net.0.bias": (4 * n_embd,), "net.2.weight": (n_embd, 4 * n_embd), "net.2.bias": (n_embd,)},
        seed,
    )


# The parts a check asks the grader to build in place of the student's own
# (grader/standins.py), by the contract's class names.
MHA_STANDINS = ("Head",)
BLOCK_STANDINS = ("Head", "MultiHeadAttention", "FeedForward")


def block_state(n_embd: int, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    """Parameters of a Block built with the stand-ins of ``BLOCK_STANDINS``."""
    square, vector = (n_embd, n_embd), (n_embd,)
    shapes = {"sa.standin.weight": square, "sa.standin.bias": vector, "ffwd.standin.weight": square, "ffwd.standin.bias": vector}
    shapes.update({"ln1.weight": vector, "ln1.bias": vector, "ln2.weight": vector, "ln2.bias": vector})
    return random_state(shapes, seed, dtype)


def block_by_hand(state: dict, x: torch.Tensor, n_head: int, block_size: int, order: str = "pre", norm_dims=(-1,)) -> torch.Tensor:
    """The stub's formula for Block (x + sa(ln1(x)), then x + ffwd(ln2(x)))
    computed with the stand-ins and ``state``, or one of its usual variants,
    for diagnoses: ``order`` "post" (ln1(x + sa(x))) or "no_residual"
    (sa(ln1(x))), ``norm_dims`` the dims layer norm averages over."""
    from grader import standins

    n_embd = x.shape[-1]
    sa, ffwd = standins.Attention(n_embd, n_head, block_size), standins.FeedForward(n_embd)
    sa.load_state_dict({k.removeprefix("sa."): v for k, v in state.items() if k.startswith("sa.")})
    ffwd.load_state_dict({k.removeprefix("ffwd."): v for k, v in state.items() if k.startswith("ffwd.")})
    sa, ffwd = sa.to(x.dtype), ffwd.to(x.dtype)

    def ln(h, name):
        mean = h.mean(dim=norm_dims, keepdim=True)
        var = h.var(dim=norm_dims, keepdim=True, unbiased=False)
        return (h - mean) / torch.sqrt(var + 1e-5) * state[f"{name}.weight"] + state[f"{name}.bias"]

    with torch.no_grad():
        if order == "post":
            h = ln(x + sa(x), "ln1")
            return ln(h + ffwd(h), "ln2")
        if order == "no_residual":
            return ffwd(ln(sa(ln(x, "ln1")), "ln2"))
        h = x + sa(ln(x, "ln1"))
        return h + ffwd(ln(h, "ln2"))
