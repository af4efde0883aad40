"""The parameters each module of the course has, by contract name and shape.

Checks load these (random, reproducible) values into both the reference and
the submission, so that the two compute with the same weights; names and
shapes are the contract from the exercises' docstrings.
"""
import torch

from grader.checking import random_state
from grader.exercises import BY_ID


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
# (grader/standins.py), by the contract's class names: an exercise's are in its
# row of grader/exercises.py.
MHA_STANDINS = ("Head",)
BLOCK_STANDINS = BY_ID["ex6_block"].standins


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


# --- ex7: the GPT, graded with a stand-in Block -------------------------------

GPT_STANDINS = BY_ID["ex7_gpt"].standins


def gpt_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    """Parameters of a GPT built with the stand-in Block of ``GPT_STANDINS``."""
    shapes = {"token_embedding_table.weight": (vocab_size, n_embd), "position_embedding_table.weight": (block_size, n_embd)}
    for i in range(n_layer):
        shapes.update({f"blocks.{i}.standin.weight": (n_embd, n_embd), f"blocks.{i}.standin.bias": (n_embd,)})
    shapes.update({"ln_f.weight": (n_embd,), "ln_f.bias": (n_embd,), "lm_head.weight": (vocab_size, n_embd), "lm_head.bias": (vocab_size,)})
    return random_state(shapes, seed, dtype)


def cycle(order) -> list:
    """The successor of each token when the tokens follow each other in
    ``order``, round and round: a permutation without a fixed point."""
    order = [int(t) for t in order]
    successor = [0] * len(order)
    for i, token in enumerate(order):
        successor[token] = order[(i + 1) % len(order)]
    return successor


def successor_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, successor, seed: int | None = None) -> dict:
    """A GPT that writes ``successor[t]`` after the token t, for certain (its
    softmax is one-hot in float32), whatever came before t: token t's
    embedding is the t-th unit vector, the blocks pass x through (all zero,
    the stand-in adds tanh(0) = 0), and row ``successor[t]`` of lm_head points
    along t's vector after ln_f, long enough that every other probability
    underflows to 0. The position embeddings are small noise drawn with
    ``seed``, or 0 without one. ``successor`` is a permutation of the
    vocabulary; n_embd >= vocab_size."""
    from grader.checking import randn

    units = torch.eye(vocab_size, n_embd)
    state = {"token_embedding_table.weight": units}
    state["position_embedding_table.weight"] = torch.zeros(block_size, n_embd) if seed is None else 0.05 * randn(block_size, n_embd, seed=seed)
    for i in range(n_layer):
        state.update({f"blocks.{i}.standin.weight": torch.zeros(n_embd, n_embd), f"blocks.{i}.standin.bias": torch.zeros(n_embd)})
    state.update({"ln_f.weight": torch.ones(n_embd), "ln_f.bias": torch.zeros(n_embd)})
    centred = units - units.mean(-1, keepdim=True)  # what ln_f leaves of each unit vector, up to its length
    head = torch.zeros(vocab_size, n_embd)
    head[torch.as_tensor(successor)] = 50 * centred / centred.norm(dim=-1, keepdim=True)
    state.update({"lm_head.weight": head, "lm_head.bias": torch.zeros(vocab_size)})
    return state


def two_choice_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, choices, seed: int) -> dict:
    """``gpt_state`` whose lm_head ignores its input: at every position the
    tokens in ``choices`` are equally likely and every other one has
    probability 0 (in float32). Only sampling tells them apart."""
    state = gpt_state(vocab_size, n_embd, n_layer, block_size, seed)
    bias = torch.full((vocab_size,), -200.0)
    bias[torch.as_tensor(choices)] = 0.0
    state.update({"lm_head.weight": torch.zeros(vocab_size, n_embd), "lm_head.bias": bias})
    return state


def bias_only_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, seed: int) -> dict:
    """``gpt_state`` with lm_head's weight 0: the logits are lm_head's bias at
    every position, whatever the layers before compute (a check of the loss
    then does not depend on them)."""
    state = gpt_state(vocab_size, n_embd, n_layer, block_size, seed)
    state["lm_head.weight"] = torch.zeros(vocab_size, n_embd)
    state["lm_head.bias"] = state["lm_head.bias"] * 4  # logits spread out: each target's loss differs
    return state


def logits_and_loss(out, what):
    """forward's answer, requested with ``tuple_out``, taken apart: (logits, loss)."""
    from grader.checking import expect, t

    if not isinstance(out, list):
        got = t(f"只返回了一个张量，形状 {tuple(out.shape)}", f"one tensor returned, of shape {tuple(out.shape)}").inline()
    elif len(out) == 2 and out[0] is None:
        got = "(None, ...)"
    else:
        got = t(f"返回了 {len(out)} 个值", f"{len(out)} values returned").inline()
    expect(
        isinstance(out, list) and len(out) == 2 and out[0] is not None,
        what,
        got,
        "(logits, loss)",
        t("forward 要返回两个值 (logits, loss)；没有 targets 时 loss 是 None。", "forward returns two values, (logits, loss); loss is None without targets."),
        diagnosed=True,
    )
    return out[0], out[1]


def gpt_by_hand(state: dict, idx: torch.Tensor, variant: str = "") -> torch.Tensor:
    """The stub's formula for GPT's logits, lm_head(ln_f(blocks(tok + pos))),
    computed with the stand-in blocks and ``state``, or one of its usual
    variants, for diagnoses: "no_position" (tok alone), "position_from_idx"
    (the position table looked up with the token ids; idx < block_size),
    "no_ln_f"."""
    from grader import standins

    table = state["position_embedding_table.weight"]
    n_embd = table.shape[-1]
    x = state["token_embedding_table.weight"][idx]  # (B, T, C)
    if variant == "position_from_idx":
        x = x + table[idx]
    elif variant != "no_position":
        x = x + table[: idx.shape[-1]]
    with torch.no_grad():
        i = 0
        while f"blocks.{i}.standin.weight" in state:
            block = standins.Block(n_embd, 1, table.shape[0]).to(x.dtype)
            block.load_state_dict({k.removeprefix(f"blocks.{i}."): v for k, v in state.items() if k.startswith(f"blocks.{i}.")})
            x = block(x)
            i += 1
        if variant != "no_ln_f":
            x = torch.nn.functional.layer_norm(x, (n_embd,), state["ln_f.weight"], state["ln_f.bias"])
        return x @ state["lm_head.weight"].T + state["lm_head.bias"]  # (B, T, V)


def generate_by_hand(state: dict, idx: torch.Tensor, max_new_tokens: int, draw_seed: int | None = None, position: int = -1, crop: str = "last") -> torch.Tensor:
    """generate as the stub says it, or a usual variant, for diagnoses. Each
    step draws with ``torch.multinomial`` from the random numbers a module
    request with ``seed=draw_seed`` uses (``ops`` seeds the generator with
    draw_seed + 1), or takes the most likely token without a ``draw_seed``.
    ``position`` 0 reads the first position's logits; ``crop`` "first" keeps
    the first block_size tokens instead of the last."""
    block_size = state["position_embedding_table.weight"].shape[0]
    generator = None if draw_seed is None else torch.Generator().manual_seed(draw_seed + 1)
    end = idx.shape[1] + max_new_tokens
    while idx.shape[1] < end:
        window = idx[:, -block_size:] if crop == "last" else idx[:, :block_size]
        probs = torch.softmax(gpt_by_hand(state, window)[:, position, :], dim=-1)  # (B, V)
        if generator is None:
            step = probs.argmax(-1, keepdim=True)  # (B, 1)
        else:
            step = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat((idx, step), dim=1)  # (B, T + 1)
    return idx
