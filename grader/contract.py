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
    """MultiHeadAttention built with the grader's stand-in heads (same parameter names as Head)."""
    hs = n_embd // n_head
    shapes = {f"heads.{i}.{p}.weight": (hs, n_embd) for i in range(n_head) for p in ("key", "query", "value")}
    shapes.update({"proj.weight": (n_embd, n_embd), "proj.bias": (n_embd,)})
    return random_state(shapes, seed)


def ffwd_state(n_embd: int, seed: int) -> dict:
    return random_state(
        {"net.0.weight": (4 * n_embd, n_embd), "net.0.bias": (4 * n_embd,), "net.2.weight": (n_embd, 4 * n_embd), "net.2.bias": (n_embd,)},
        seed,
    )


def block_standins(n_embd: int) -> dict:
    """Block's sa and ffwd replaced by stand-ins (grader/standins.py), so ex6's Block is graded on its own."""
    return {"sa": {"kind": "mixer", "n_embd": n_embd}, "ffwd": {"kind": "position_wise", "n_embd": n_embd}}


def block_state(n_embd: int, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    """Parameters of a Block whose sa and ffwd are the stand-ins of ``block_standins``."""
    square, vector = (n_embd, n_embd), (n_embd,)
    shapes = {"sa.lin.weight": square, "sa.lin.bias": vector, "ffwd.lin.weight": square, "ffwd.lin.bias": vector}
    shapes.update({"ln1.weight": vector, "ln1.bias": vector, "ln2.weight": vector, "ln2.bias": vector})
    return random_state(shapes, seed, dtype)
