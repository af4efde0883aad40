"""ex4_masking: public checks."""

import pytest
import torch

from grader.authoring.checking import caused_by, expect, expect_close, fmt, randn, t
from grader.authoring.domain_checks import expect_function
from grader.authoring.upstream import drawn, mask_behind_weights
from grader.authoring.worked_examples import expect_example

FILLED_WITH_ZERO = t("你把未来位置填成了 0：0 经过 softmax 仍有权重，要填 -inf。", "You filled the future with 0: a 0 still gets weight after softmax; fill it with -inf.")
TRIL_TRIU = t("你遮住了对角线以下（过去）而不是以上（未来）：tril 与 triu 弄反了。", "You masked below the diagonal (the past) instead of above it (the future): tril and triu are swapped.")


def future(T: int) -> torch.Tensor:
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def ref_weights_of_zeros() -> torch.Tensor:
    """What causal_weights(torch.zeros(3, 3)) is: the running averaging matrix."""
    return torch.tril(torch.ones(3, 3)) / torch.arange(1, 4).unsqueeze(-1)


def weight_diagnoses(scores, want):
    """What the usual mistakes make of ``causal_weights(scores)``."""
    size = scores.size(-1)
    masked = scores.masked_fill(future(size), float("-inf"))
    return [
        (torch.softmax(scores, dim=-1), t("你没有做掩码：未来位置也分到了权重。", "There is no mask: the future gets weight too.")),
        (
            torch.softmax(masked, dim=-2),
            t("softmax 做在了倒数第二维上：要在最后一维（dim=-1），让每一行加起来是 1。", "Softmax over the second-to-last dim: it must be the last one (dim=-1), so that each row adds up to 1."),
        ),
        (torch.softmax(scores.masked_fill(future(size), 0.0), dim=-1), FILLED_WITH_ZERO),
        (want.transpose(-2, -1).contiguous(), TRIL_TRIU),
    ]


MASK_EXAMPLE = """
>>> causal_mask(torch.ones(3, 3))
tensor([[1., -inf, -inf],
        [1., 1., -inf],
        [1., 1., 1.]])
"""
WEIGHTS_EXAMPLE = """
>>> causal_weights(torch.zeros(3, 3))
tensor([[1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.3333, 0.3333, 0.3333]])
"""


@pytest.mark.points(1)
def test_mask_of_ones(sub, ref):
    """文档里的例子：causal_mask(全 1 的 3×3) / the docstring's example: causal_mask of a 3×3 of ones"""
    scores = torch.ones(3, 3)
    want = ref.causal_mask(scores)
    expect_example(
        sub,
        ref,
        MASK_EXAMPLE,
        diagnoses={
            0: lambda: [
                (torch.tril(scores), FILLED_WITH_ZERO),
                (want.transpose(-2, -1), TRIL_TRIU),
                (scores.masked_fill(future(3), -1e9), t("你用了 -1e9 之类的大负数；约定是 float('-inf')。", "You used a large negative number such as -1e9; the convention here is float('-inf').")),
            ]
        },
    )


@pytest.mark.points(1)
def test_docstring_example_causal_weights(sub, ref):
    """文档里的例子：分数全为 0 时，每行平均分给过去 / the docstring's example: all-zero scores share each row evenly over the past"""
    # All scores equal: where the future is is known from the positions alone, never from the values.
    expect_example(sub, ref, WEIGHTS_EXAMPLE, diagnoses={0: lambda: weight_diagnoses(torch.zeros(3, 3), ref_weights_of_zeros())})


@pytest.mark.points(1)
def test_weights_rows_and_future(sub, ref):
    """权重每行和为 1，未来位置恰好为 0 / weights: rows sum to 1, exactly zero on the future"""
    scores = randn(2, 5, 5, seed=41)
    w = sub.causal_weights(scores)
    want = ref.causal_weights(scores)
    # A wrong causal_mask that causal_weights takes the softmax of: that is what to fix, and no mistake of causal_weights' is named.
    with caused_by(lambda: mask_behind_weights(sub, [scores])):
        expect_close(w, want, what=t("causal_weights(scores)，scores 形状 (2, 5, 5)", "causal_weights(scores) with scores of shape (2, 5, 5)"), diagnoses=lambda: weight_diagnoses(scores, want))
    # (Equal to the reference within tolerance; these hold exactly for the right answer.)
    expect(
        bool((w[:, future(5)] == 0).all()),
        t("对角线以上（未来）的权重", "the weights above the diagonal (the future)"),
        fmt(w[0]),
        t("全部恰好为 0", "all exactly 0").inline(),
        t("未来的权重很小但不是 0：只有 -inf 经过 softmax 才恰好是 0。", "The future's weights are small but not 0: only -inf becomes exactly 0 after softmax."),
        diagnosed=True,
    )


@pytest.mark.points(1)
def test_weights_any_batch_dims(sub, ref):
    """没有或有几个批维度，各种内存布局 / no batch dim or several, in any memory layout"""
    with caused_by(lambda: mask_behind_weights(sub, drawn("causal_weights", 43))):
        expect_function(sub, ref, "causal_weights", seed=43, diagnoses=lambda draw, want: weight_diagnoses(draw.args[0], want))


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """float64 进，float64 出 / the dtype is kept: float64 in, float64 out"""
    scores = randn(2, 4, 4, seed=241, dtype=torch.float64)
    for name in ("causal_mask", "causal_weights"):
        expect_close(
            getattr(sub, name)(scores),
            getattr(ref, name)(scores),
            what=t(f"{name}(scores)，float64 的 scores (2, 4, 4)：结果也是 float64", f"{name}(scores) with float64 scores of shape (2, 4, 4): the result is float64 too"),
        )


@pytest.mark.points(1)
def test_weights_leave_the_scores_alone(sub, ref):
    """causal_weights 不改动传进来的 scores，T = 1 也一样 / causal_weights leaves the scores passed in as they are, at T = 1 too"""
    for shape, seed in (((2, 5, 5), 242), ((3, 1, 1), 243)):
        scores = randn(*shape, seed=seed)
        got, (after,), (shared,) = sub.call_watching_args("causal_weights", scores)
        expect(
            torch.equal(after, scores),
            t(f"调用 causal_weights 之后，传进去的 scores（形状 {shape}）", f"the scores passed in (shape {shape}), after causal_weights returns"),
            fmt(after[0]),
            fmt(scores[0]),
            t(
                "传进去的分数被改动了（未来的格子成了 -inf）：不要原地修改（scores[...] = ...、masked_fill_），用 masked_fill 或 causal_mask 得到一个新张量。",
                "The scores passed in were changed (the future became -inf): do not modify them in place (scores[...] = ..., masked_fill_); make a new tensor with masked_fill or causal_mask.",
            )
            if shape[-1] > 1
            else t(
                "传进去的分数被改动了：T = 1 时没有什么要遮，但也不能在传进来的张量上计算权重，要得到一个新张量。",
                "The scores passed in were changed: at T = 1 there is nothing to mask, but the weights are still not computed in the tensor passed in; they are a new tensor.",
            ),
            diagnosed=True,
        )
        expect(
            not shared,
            t(f"causal_weights(scores) 的结果，scores 形状 {shape}", f"the result of causal_weights(scores), scores of shape {shape}"),
            t("就是传进去的 scores（或共用内存的视图）", "the scores passed in themselves (or a view sharing their memory)").inline(),
            t("一个新张量", "a new tensor").inline(),
            t(
                "返回的权重就是传进来的张量（或共用内存的视图）：权重要放在一个新张量里。",
                "The weights returned are the tensor passed in (or a view sharing its memory): the weights belong in a new tensor.",
            ),
            diagnosed=True,
        )
        with caused_by(lambda: mask_behind_weights(sub, [scores])):
            expect_close(got, ref.causal_weights(scores), what=t(f"causal_weights(scores)，scores 形状 {shape}", f"causal_weights(scores) with scores of shape {shape}"))
