"""When a check of one function fails because another function of the exercise is wrong.

ex1's average_past is usually averaging_matrix(T) @ x, ex4's causal_weights
the softmax of causal_mask(scores), ex7's generate asks forward for its
logits. When the function underneath is wrong, the check of the one above
fails with it, and what its answer looks like says nothing about the
function checked: a diagnosis of it would name a mistake it does not make
(generate "gives the model only the last token", when forward adds no
position embeddings). These are the finders for ``checking.caused_by``:
each asks the submission for the function underneath, on the inputs the
check used, compares that with its right answer computed here by hand, and
returns the hint to show (which function is wrong: fix it first) or None.

They ask ``sub`` only, never ``ref``: the student release replays the
reference answers recorded for right answers, and a wrong answer's
questions were never recorded. Each is called only once a check has failed.
(ex6 needs none: its Block checks build the grader's stand-ins for
MultiHeadAttention and FeedForward, never the student's own; ex5 and ex7
build on the grader's modules for the earlier exercises.)
"""

import torch

from grader.authoring.checking import t
from grader.text import Text

MATRIX_IS_WRONG = t(
    "这个检查没通过，是因为 averaging_matrix 不对：在同样的 x 上，你的 average_past 算的正是你的 averaging_matrix(T) 乘以 x，而这个矩阵本身不对。先改好 averaging_matrix，average_past 会跟着对。",
    "This check fails because averaging_matrix is wrong: on the same x, your average_past is your averaging_matrix(T) times x, and that matrix is not the right one. "
    "Fix averaging_matrix first; average_past follows.",
)
MASK_IS_WRONG = t(
    "这个检查没通过，是因为 causal_mask 不对：在同样的 scores 上，你的 causal_weights 正是对你的 causal_mask 的结果做 softmax，而 causal_mask 的结果本身不对。先改好 causal_mask，causal_weights 会跟着对。",
    "This check fails because causal_mask is wrong: on the same scores, your causal_weights is the softmax of what your causal_mask returns, and that is not the right mask. "
    "Fix causal_mask first; causal_weights follows.",
)
FORWARD_IS_WRONG = t(
    "这个检查没通过，是因为 forward 不对：在 generate 交给模型的同样的上文上，你的 forward 给出的 logits 在最后一个位置上的概率和正确的不同，所以写出来的字也不同。先改好 forward（logits），再看 generate。",
    "This check fails because forward is wrong: on the same contexts generate gives the model, the probabilities of your forward's logits at the last position are not the right ones, "
    "so the tokens written differ. Fix forward (the logits) first, then look at generate again.",
)


def _same(got, want: torch.Tensor, atol: float = 1e-5, rtol: float = 1e-4, check_dtype: bool = True) -> bool:
    """``got`` is a tensor with ``want``'s shape (and dtype) and values (NaN and infinities where ``want`` has them)."""
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
        return False
    if check_dtype and got.dtype != want.dtype:
        return False
    if got.is_complex() or got.dtype == torch.bool:
        return False
    return bool(torch.allclose(got.to(torch.float64), want.to(torch.float64), atol=atol, rtol=rtol, equal_nan=True))


# --- ex1: average_past over averaging_matrix -------------------------------------


def right_matrix(T: int) -> torch.Tensor:
    ones = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return ones / ones.sum(-1, keepdim=True)


def matrix_behind_average(sub, inputs) -> Text | None:
    """average_past fails because averaging_matrix is: on one of ``inputs``
    (the x the check gave average_past, each (B, T, C)), average_past is
    wrong, averaging_matrix(T) is wrong (its values: any float dtype is
    right, as its own checks say), and average_past is that matrix times x."""
    for x in inputs:
        T = x.shape[-2]
        matrix, right = sub.averaging_matrix(T), right_matrix(T)
        if _same(matrix, right, check_dtype=False) or not isinstance(matrix, torch.Tensor) or tuple(matrix.shape) != (T, T) or matrix.is_complex():
            continue
        got = sub.average_past(x)
        x64 = x.to(torch.float64)
        if _same(got, (right @ x64).to(x.dtype)):
            continue
        if _same(got, matrix.to(torch.float64) @ x64, atol=1e-4, rtol=1e-3, check_dtype=False):
            return MATRIX_IS_WRONG
    return None


# --- ex4: causal_weights over causal_mask ------------------------------------------


def right_mask(scores: torch.Tensor) -> torch.Tensor:
    size = scores.shape[-1]
    return scores.masked_fill(torch.ones(size, size, dtype=torch.bool).triu(1), float("-inf"))


def mask_behind_weights(sub, inputs) -> Text | None:
    """causal_weights fails because causal_mask is: on one of ``inputs``
    (the scores the check gave causal_weights), causal_weights is wrong,
    causal_mask is wrong (shape, dtype or values), and causal_weights is the
    softmax over the last dim of what causal_mask returns."""
    for scores in inputs:
        mask, right = sub.causal_mask(scores), right_mask(scores)
        if _same(mask, right, atol=0, rtol=0) or not isinstance(mask, torch.Tensor) or not mask.is_floating_point():
            continue
        got = sub.causal_weights(scores)
        if _same(got, torch.softmax(right, dim=-1)):
            continue
        if _same(got, torch.softmax(mask, dim=-1)):
            return MASK_IS_WRONG
    return None


# --- ex7: generate over forward -------------------------------------------------------


def generated_windows(tokens: torch.Tensor, T: int, block_size: int) -> list[torch.Tensor]:
    """The contexts a right generate gives the model at each step, writing
    ``tokens`` (B, T + S) from its first T columns: the last block_size
    tokens of what is written so far."""
    return [tokens[:, : T + s][:, -block_size:] for s in range(tokens.shape[1] - T)]


def forward_behind_generate(sub, init: list, state: dict, windows) -> Text | None:
    """generate fails because forward is: on one of ``windows`` (contexts
    (B, t), t <= block_size, such as a right generate gives the model:
    ``generated_windows``), the next token's probabilities from the
    submission's forward (the softmax of its logits at the last position)
    are not those of the stub's formula, computed by hand with the grader's
    stand-in blocks (``contract.gpt_by_hand``). A forward that returns the
    logits alone is taken at its word: generate may read it so."""
    from grader.authoring.checking import unique_rows
    from grader.authoring.contract import GPT_STANDINS, gpt_by_hand

    distinct: list = []
    for window in windows:
        rows, _ = unique_rows(window)  # a sampling check's thousands of rows hold a few contexts
        if not any(tuple(rows.shape) == tuple(seen.shape) and torch.equal(rows, seen) for seen in distinct):
            distinct.append(rows)
    outs = sub.module("GPT", init=init, state=state, inputs=distinct, standins=GPT_STANDINS, tuple_out=True).outs
    vocab_size = state["lm_head.weight"].shape[0]
    for window, out in zip(distinct, outs):
        logits = out[0] if isinstance(out, list) and out else out
        if not isinstance(logits, torch.Tensor) or tuple(logits.shape) != (*window.shape, vocab_size) or not logits.is_floating_point():
            return FORWARD_IS_WRONG
        got = torch.softmax(logits[:, -1].to(torch.float64), dim=-1)
        want = torch.softmax(gpt_by_hand(state, window)[:, -1].to(torch.float64), dim=-1)
        if not torch.allclose(got, want, atol=1e-4, rtol=1e-3):
            return FORWARD_IS_WRONG
    return None


def drawn(name: str, seed: int, n: int | None = None, **fixed) -> list[torch.Tensor]:
    """The first tensor argument of each draw that ``domain.expect_function(sub, ref,
    name, seed, n, **fixed)`` checks ``name`` on: the inputs a finder asks about."""
    from grader.authoring.domain import draws

    return [draw.args[0] for draw in draws(name, seed, n, **fixed)]
