"""ex4_masking: public checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, randn, t

MASK_HINT = t(
    "对角线以上（j > i，未来）填 -inf，对角线和以下保持原值：scores.masked_fill(tril == 0, float('-inf'))。",
    "Fill above the diagonal (j > i, the future) with -inf and keep the diagonal and below: scores.masked_fill(tril == 0, float('-inf')).",
)


@pytest.mark.points(2)
def test_mask_of_ones(sub, ref):
    """causal_mask(全 1 的 3×3) / causal_mask of a 3×3 of ones"""
    scores = torch.ones(3, 3)
    want = ref.causal_mask(scores)
    expect_close(
        sub.causal_mask(scores),
        want,
        what=t("causal_mask(torch.ones(3, 3))", "causal_mask(torch.ones(3, 3))"),
        hint=MASK_HINT,
        diagnoses=[
            (torch.tril(scores), t("你把未来位置填成了 0：0 经过 softmax 仍有权重，要填 -inf。", "You filled the future with 0: a 0 still gets weight after softmax; fill it with -inf.")),
            (want.transpose(-2, -1), t("你遮住了对角线以下（过去）而不是以上（未来）：tril 与 triu 弄反了。", "You masked below the diagonal (the past) instead of above it (the future): tril and triu are swapped.")),
            (scores.masked_fill(torch.tril(torch.ones(3, 3)) == 0, -1e9), t("你用了 -1e9 之类的大负数；约定是 float('-inf')。", "You used a large negative number such as -1e9; the convention here is float('-inf').")),
        ],
    )


@pytest.mark.points(3)
def test_weights_rows_and_future(sub):
    """权重每行和为 1，未来位置恰好为 0 / weights: rows sum to 1, exactly zero on the future"""
    w = sub.causal_weights(randn(2, 5, 5, seed=41))
    expect(tuple(w.shape) == (2, 5, 5), t("causal_weights 的形状", "the shape of causal_weights"), str(tuple(w.shape)), "(2, 5, 5)")
    future = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    expect(
        bool((w[:, future] == 0).all()),
        t("对角线以上（未来）的权重", "the weights above the diagonal (the future)"),
        fmt(w[0]),
        t("全部恰好为 0", "all exactly 0").inline(),
        t("softmax 之前先做 causal_mask：-inf 经过 softmax 才会变成 0。", "Apply causal_mask before softmax: only -inf turns into exactly 0."),
    )
    expect(
        torch.allclose(w.sum(-1), torch.ones(2, 5), atol=1e-5),
        t("每一行权重之和", "the sum of each row of weights"),
        fmt(w.sum(-1)),
        t("全为 1", "all 1").inline(),
        t("softmax 要在最后一维上做（dim=-1）：每个位置的那一行加起来是 1。", "Softmax over the last dim (dim=-1): each position's row adds up to 1."),
    )


@pytest.mark.points(2)
def test_weights_values(sub, ref):
    """随机分数的权重数值 / the weights of random scores"""
    scores = randn(2, 4, 4, seed=42)
    expect_close(
        sub.causal_weights(scores),
        ref.causal_weights(scores),
        what=t("causal_weights(scores)，scores 形状 (2, 4, 4)", "causal_weights(scores) with scores of shape (2, 4, 4)"),
        hint=t("先 causal_mask，再在最后一维做 softmax。", "causal_mask first, then softmax over the last dim."),
        diagnoses=[(torch.softmax(scores, dim=-1), t("你没有做掩码：未来位置也分到了权重。", "There is no mask: the future gets weight too."))],
    )
