"""The parameters each module of the course has, by contract name and shape.

Checks load these (random, reproducible) values into both the reference and
the submission, so that the two compute with the same weights; names and
shapes are the contract from the exercises' docstrings.
"""

import math

import torch

from grader.authoring.checking import random_state, unique_rows
from grader.exercises import BY_ID
from grader.text import count


def head_state(n_embd: int, head_size: int, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    shape = (head_size, n_embd)
    return random_state({"key.weight": shape, "query.weight": shape, "value.weight": shape}, seed, dtype)


def mha_state(n_embd: int, n_head: int, seed: int) -> dict:
    """MultiHeadAttention built with the grader's stand-in heads (``MHA_STANDINS``: the same parameter names as Head)."""
    hs = n_embd // n_head
    shapes: dict[str, tuple[int, ...]] = {f"heads.{i}.{p}.weight": (hs, n_embd) for i in range(n_head) for p in ("key", "query", "value")}
    shapes.update({"proj.weight": (n_embd, n_embd), "proj.bias": (n_embd,)})
    return random_state(shapes, seed)


def ffwd_state(n_embd: int, seed: int) -> dict:
    return random_state(
        {"net.0.weight": (4 * n_embd, n_embd), "net.0.bias": (4 * n_embd,), "net.2.weight": (n_embd, 4 * n_embd), "net.2.bias": (n_embd,)},
        seed,
    )


# The parts a check asks the grader to build in place of the student's own
# (grader/child/standins.py), by the contract's class names: an exercise's are in its
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
    from grader.child import standins

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
    shapes: dict[str, tuple[int, ...]] = {"token_embedding_table.weight": (vocab_size, n_embd), "position_embedding_table.weight": (block_size, n_embd)}
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
    from grader.authoring.checking import randn

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


def window_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, successor) -> dict:
    """A GPT that writes ``successor[f]`` for certain, f the first token of
    what it is given (the window generate crops), whatever follows: so how
    much context generate keeps shows in what it writes (the whole window,
    one token fewer, the last token alone, the first block_size tokens all
    write other text wherever those first tokens differ).

    Token t's embedding is a small t-th unit vector; position 0 adds the same
    small amount along the one dim after the vocabulary (a marker). The first
    block's stand-in (x + running mean of tanh(W x + b)) makes, for each
    token dim j, tanh(K (x_j + marker - 1.5 e)): +1 where token j stands at
    position 0, -1 everywhere else; the running mean at any position is then
    -1 in every token dim but the first token's, 2 / (t + 1) higher. The
    other blocks pass x through; lm_head reads, after ln_f, the first token's
    dim into its successor's logit, long enough that every other probability
    underflows to 0 (in float32, T <= 8 and vocab_size <= 11). n_embd >
    vocab_size; ``successor`` is a permutation of the vocabulary."""
    eps, gain = 0.01, 4000.0  # eps * gain = 40: tanh saturates to +-1 in float32
    marker = vocab_size  # the dim after the vocabulary's
    state = {"token_embedding_table.weight": eps * torch.eye(vocab_size, n_embd)}
    position = torch.zeros(block_size, n_embd)
    position[0, marker] = eps
    state["position_embedding_table.weight"] = position
    weight, bias = torch.zeros(n_embd, n_embd), torch.zeros(n_embd)
    weight[:vocab_size, :vocab_size] = gain * torch.eye(vocab_size)
    weight[:vocab_size, marker] = gain
    bias[:vocab_size] = -1.5 * eps * gain
    for i in range(n_layer):
        first = i == 0
        state.update({f"blocks.{i}.standin.weight": weight if first else torch.zeros(n_embd, n_embd), f"blocks.{i}.standin.bias": bias if first else torch.zeros(n_embd)})
    state.update({"ln_f.weight": torch.ones(n_embd), "ln_f.bias": torch.zeros(n_embd)})
    head = torch.zeros(vocab_size, n_embd)
    head[torch.as_tensor(successor), torch.arange(vocab_size)] = 400.0
    state.update({"lm_head.weight": head, "lm_head.bias": torch.zeros(vocab_size)})
    return state


def distinct_contexts(vocab_size: int, rows: int, T: int, seed: int) -> torch.Tensor:
    """idx (rows, T): each row a random order of the vocabulary, repeated if T
    is longer, so that tokens closer than vocab_size positions apart differ
    (what a check of how much context is kept needs)."""
    from grader.authoring.checking import randn

    orders = randn(rows, vocab_size, seed=seed).argsort(dim=-1)  # (rows, V)
    return orders.repeat(1, -(-T // vocab_size))[:, :T]


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
    from grader.authoring.checking import expect, t

    if not isinstance(out, list):
        got = t(f"只返回了一个张量，形状 {tuple(out.shape)}", f"one tensor returned, of shape {tuple(out.shape)}").inline()
    elif len(out) == 2 and out[0] is None:
        got = "(None, ...)"
    else:
        got = t(f"返回了 {len(out)} 个值", f"{count(len(out), 'value')} returned").inline()
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
    from grader.child import standins

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


def generate_by_hand(state: dict, idx: torch.Tensor, max_new_tokens: int, draw_seed: int | None = None, position: int = -1, crop: str = "last", keep: int | None = None) -> torch.Tensor:
    """generate as the stub says it, or a usual variant, for diagnoses. Each
    step draws with ``torch.multinomial`` from the random numbers a module
    request with ``seed=draw_seed`` uses (``ops`` seeds the generator with
    draw_seed + 1), or takes the most likely token without a ``draw_seed``.
    ``position`` 0 reads the first position's logits; ``crop`` "first" keeps
    the first block_size tokens instead of the last; ``keep`` keeps that many
    last tokens instead of block_size (fewer: a crop that is too short)."""
    block_size = state["position_embedding_table.weight"].shape[0]
    kept = block_size if keep is None else keep
    generator = None if draw_seed is None else torch.Generator().manual_seed(draw_seed + 1)
    end = idx.shape[1] + max_new_tokens
    while idx.shape[1] < end:
        window = idx[:, -kept:] if crop == "last" else idx[:, :block_size]
        probs = torch.softmax(gpt_by_hand(state, window)[:, position, :], dim=-1)  # (B, V)
        if generator is None:
            step = probs.argmax(-1, keepdim=True)  # (B, 1)
        else:
            step = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
        idx = torch.cat((idx, step), dim=1)  # (B, T + 1)
    return idx


# --- ex7: judging generate by what it draws ------------------------------------

# The probabilities after every token: proportional to RATIO ** rank, ranks
# 0..V-1 (0.40, 0.24, 0.15, 0.09, 0.05, ... for V = 9 or 11): not uniform, four
# likely tokens and a tail that a top-k or top-p cut would drop.
SAMPLING_RATIO = 0.6


def sampling_logits(vocab_size: int, seed: int) -> torch.Tensor:
    """(V, V) float64: row t, the logits after token t. Every row holds the
    same probabilities (``SAMPLING_RATIO``), their ranks rotated by a
    different amount for each t (drawn with ``seed``), so the next token's
    distribution depends on the last token: drawing from another position
    draws from another distribution. Shifted so that the smallest logit is 1:
    every logit is positive, so that drawing in proportion to the logits
    themselves (no softmax) runs, and is seen to be wrong."""
    from grader.authoring.checking import randn

    rank = torch.arange(vocab_size, dtype=torch.float64)
    base = rank * math.log(SAMPLING_RATIO)  # log-probabilities, up to a constant
    base = base - base.min() + 1
    shifts = randn(vocab_size, seed=seed).argsort()  # a permutation: every row another rotation
    return torch.stack([base.roll(int(s)) for s in shifts])


def sampling_state(vocab_size: int, n_embd: int, n_layer: int, block_size: int, logits: torch.Tensor) -> dict:
    """A GPT whose logits after the token t are ``logits[t]`` (a (V, V)
    table), whatever came before t and wherever t stands: ``successor_state``
    without position embeddings (the blocks pass x through, token t's vector
    after ln_f is the same wherever it is), with lm_head solved so that it maps
    t's vector after ln_f to ``logits[t]``. n_embd > vocab_size (the centred
    unit vectors are then independent)."""
    state = successor_state(vocab_size, n_embd, n_layer, block_size, list(range(vocab_size)))
    units = torch.eye(vocab_size, n_embd, dtype=torch.float64)
    after_ln = torch.nn.functional.layer_norm(units, (n_embd,))  # (V, C): what ln_f makes of each token's vector
    head = torch.linalg.lstsq(after_ln, logits.to(torch.float64)).solution.T  # (V, C): after_ln @ head.T = logits
    state["lm_head.weight"] = head.to(torch.float32).contiguous()
    return state


def sampling_contexts(vocab_size: int, T: int, n_contexts: int, rows_each: int, seed: int) -> torch.Tensor:
    """idx (n_contexts * rows_each, T): ``n_contexts`` random contexts, each
    repeated on ``rows_each`` rows in a random order, each ending in another
    token, and each beginning with a token other than its last."""
    from grader.authoring.checking import randint, randn

    lasts = randn(vocab_size, seed=seed).argsort()[:n_contexts]
    contexts = randint(vocab_size, n_contexts, T, seed=seed + 1)
    contexts[:, -1] = lasts
    same = contexts[:, 0] == lasts
    contexts[same, 0] = (lasts[same] + 1) % vocab_size
    order = randn(n_contexts * rows_each, seed=seed + 2).argsort() % n_contexts
    return contexts[order]


def generate_logits(state: dict, tokens: torch.Tensor, T: int, position: int = -1) -> torch.Tensor:
    """(B, S, V) float64: the logits each new token of ``tokens`` (B, T + S)
    is drawn from, given what came before it in its row (the row's own
    earlier draws included), as the stub's generate computes them: those of
    the last position over the last block_size tokens (``position`` 0: of
    the first, for a diagnosis). Each distinct window is computed once."""
    return _per_window(state, tokens, T, position, lambda logits: logits)


def generate_probs(state: dict, tokens: torch.Tensor, T: int, position: int = -1) -> torch.Tensor:
    """(B, S, V) float64: the softmax of ``generate_logits``, the distribution each new token follows."""
    return _per_window(state, tokens, T, position, lambda logits: torch.softmax(logits, dim=-1))


def _per_window(state: dict, tokens: torch.Tensor, T: int, position: int, then) -> torch.Tensor:
    """``then`` of the logits of each distinct window (the thousands of rows
    of a sampling check hold a few dozen), given to every row that has it."""
    block_size = state["position_embedding_table.weight"].shape[0]
    out = []
    for s in range(tokens.shape[1] - T):
        windows, which = unique_rows(tokens[:, : T + s][:, -block_size:])
        out.append(then(gpt_by_hand(state, windows)[:, position, :].to(torch.float64))[which])
    return torch.stack(out, dim=1)


def sampling_diagnoses(state: dict, tokens: torch.Tensor, T: int) -> list:
    """What the draws of ``tokens`` (B, T + S) would follow under the usual
    mistakes, with what to say: (probs (B, S, V), Text) for ``expect_draws``."""
    from grader.authoring.checking import t

    probs = generate_probs(state, tokens, T)
    logits = generate_logits(state, tokens, T)
    ranked = probs.argsort(dim=-1, descending=True)
    out = []
    for k in range(1, probs.shape[-1]):
        kept = torch.zeros_like(probs).scatter_(-1, ranked[..., :k], probs.gather(-1, ranked[..., :k]))
        kept = kept / kept.sum(-1, keepdim=True)
        if k == 1:
            hint = t(
                "每次都取了概率最大的字：要按 softmax 给出的概率抽样（torch.multinomial 就是做这个的），每个字都有机会。",
                "It always takes the most likely token: draw from the softmax's probabilities (what torch.multinomial does), so that every token has its chance.",
            )
        else:
            hint = t(
                f"只抽到了最可能的 {k} 个字：抽样前把其余的字去掉了（top-k 或 top-p）。要从整个 softmax 里抽，每个字都有机会。",
                f"Only the {k} most likely tokens are ever drawn: the others were cut off before drawing (top-k or top-p). Draw from the whole softmax: every token has its chance.",
            )
        out.append((kept, hint))
    out.insert(
        1,
        (
            generate_probs(state, tokens, T, position=0),
            t(
                "抽样用的是第一个位置的 logits：下一个字要看最后一个位置，logits[:, -1, :]。",
                "This samples from the first position's logits: the next token comes from the last position, logits[:, -1, :].",
            ),
        ),
    )
    if bool((logits >= 0).all()):
        out.insert(
            2,
            (
                logits / logits.sum(-1, keepdim=True),
                t(
                    "抽样的概率和 logits 本身成正比：logits 不是概率，要先做 softmax。",
                    "The tokens are drawn in proportion to the logits themselves: logits are no probabilities, take the softmax first.",
                ),
            ),
        )
    # A temperature: the scale of the logits that explains the draws best
    # (the most likely), found on each distinct row of logits with its counts.
    new = tokens[:, T:]
    rows, which = unique_rows(logits.reshape(-1, logits.shape[-1]))
    counts = torch.zeros_like(rows).index_put_((which, new.reshape(-1)), torch.ones(which.shape, dtype=rows.dtype), accumulate=True)
    scales = torch.exp(torch.linspace(math.log(0.2), math.log(5.0), 241, dtype=torch.float64))
    fit = (torch.log_softmax(scales[:, None, None] * rows, dim=-1) * counts).sum(dim=(1, 2))  # (241,)
    best = float(scales[int(fit.argmax())])
    out.append(
        (
            torch.softmax(logits * best, dim=-1),
            t(
                f"抽到的频率像是 softmax(logits / {1 / best:.2g})：多了一个温度。要从 softmax(logits) 本身抽样，不要除以任何数。",
                f"The draws look like softmax(logits / {1 / best:.2g}): a temperature crept in. Draw from softmax(logits) itself, divided by nothing.",
            ),
        )
    )
    return out


def expect_sampling(endpoint, init: list, state: dict, idx: torch.Tensor, max_new_tokens: int, draw_seed: int, what) -> None:
    """Ask ``endpoint`` for generate(idx, max_new_tokens) with the global
    generator seeded by ``draw_seed`` (repeatable), and judge it by what it
    draws: the new tokens must follow the model's softmax (``expect_draws``,
    whose false alarm rate is at most ``checking.FALSE_ALARM``)."""
    from grader.authoring.checking import CheckFailed, expect_draws, t

    got = endpoint.module("GPT", init=init, state=state, inputs=[[idx, max_new_tokens]], standins=GPT_STANDINS, method="generate", seed=draw_seed).outs[0]
    T = idx.shape[1]
    vocab_size = state["lm_head.weight"].shape[0]
    shape = (idx.shape[0], T + max_new_tokens)
    if tuple(got.shape) != shape:
        raise CheckFailed(
            what,
            f"shape {tuple(got.shape)}",
            f"shape {shape}",
            difference=t("形状不对：前 T 列是 idx，后面接 max_new_tokens 个新字", "the shape differs: the first T columns are idx, then max_new_tokens new tokens"),
        )
    if got.dtype != torch.long:
        raise CheckFailed(what, f"dtype {got.dtype}", "dtype torch.int64", difference=t(f"类型是 {got.dtype}，字的编号要是 torch.long", f"the dtype is {got.dtype}: token ids are torch.long"))
    if not torch.equal(got[:, :T], idx):
        rows = int((got[:, :T] != idx).any(-1).sum())
        raise CheckFailed(
            what,
            t(f"前 {T} 列有 {rows} 行和 idx 不同", f"the first {T} columns differ from idx in {count(rows, 'row')}").inline(),
            t(f"前 {T} 列就是 idx", f"the first {T} columns are idx").inline(),
            difference=t("generate 要把新字接在 idx 后面，idx 本身不变", "generate appends the new tokens to idx and leaves idx itself as it is"),
        )
    outside = (got < 0) | (got >= vocab_size)
    if bool(outside.any()):
        bad = int(got[outside][0])
        raise CheckFailed(
            what,
            t(f"字 {bad}", f"token {bad}").inline(),
            f"0 .. {vocab_size - 1}",
            difference=t(f"{int(outside.sum())} 个字的编号不在 0 到 {vocab_size - 1} 之间", f"{int(outside.sum())} token ids are outside 0 .. {vocab_size - 1}"),
        )
    expect_draws(got[:, T:], generate_probs(state, got, T), what, diagnoses=lambda: sampling_diagnoses(state, got, T))
