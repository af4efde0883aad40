"""ex4_masking: hidden checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, randn, t


@pytest.mark.points(2)
def test_mask_keeps_the_past_in_batches(sub, ref):
    """过去的分数原样保留，任意批维度 / the past is kept exactly, with any batch dims"""
    scores = randn(2, 3, 5, 5, seed=43)
    expect_close(
        sub.causal_mask(scores),
        ref.causal_mask(scores),
        what=t("causal_mask(scores)，scores 形状 (2, 3, 5, 5)", "causal_mask(scores) with scores of shape (2, 3, 5, 5)"),
        hint=t("只改对角线以上的格子；掩码按最后两维构造，再广播到批维度。", "Change only the entries above the diagonal; build the mask from the last two dims and let it broadcast."),
        atol=0,
        rtol=0,
    )


@pytest.mark.points(1)
def test_single_position(sub, ref):
    """T = 1：唯一的权重是 1 / T = 1: the only weight is 1"""
    scores = randn(3, 1, 1, seed=44)
    expect_close(
        sub.causal_weights(scores),
        ref.causal_weights(scores),
        what=t("causal_weights，scores 形状 (3, 1, 1)", "causal_weights with scores of shape (3, 1, 1)"),
        hint=t("对角线本身不能遮：位置 i 总能看见自己，否则第一行全是 -inf，softmax 得到 NaN。", "Never mask the diagonal: position i always sees itself, or the first row is all -inf and softmax gives NaN."),
    )


@pytest.mark.points(2)
def test_input_left_unchanged(sub):
    """不改动传进来的分数 / the scores passed in are left unchanged"""
    scores = randn(2, 4, 4, seed=45)
    _, (after,) = sub.call_keeping_args("causal_mask", scores)
    expect(
        torch.equal(after, scores),
        t("调用 causal_mask 之后，传进去的 scores", "the scores passed in, after causal_mask returns"),
        fmt(after[0]),
        fmt(scores[0]),
        t("用 masked_fill（返回新张量），不要用 masked_fill_（原地修改）。", "Use masked_fill (returns a new tensor), not masked_fill_ (in place)."),
    )


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    scores = randn(2, 3, 3, seed=46, dtype=torch.float64)
    expect_close(sub.causal_weights(scores), ref.causal_weights(scores), what=t("float64 的 scores", "float64 scores"), atol=1e-10, rtol=1e-8)


@pytest.mark.points(1)
def test_longer_sequence(sub, ref):
    """比 8 更长的序列 / a sequence longer than 8"""
    scores = randn(1, 11, 11, seed=47)
    expect_close(
        sub.causal_weights(scores),
        ref.causal_weights(scores),
        what=t("T = 11", "T = 11"),
        hint=t("掩码的大小要跟着 T 走（scores.shape[-1]），不要写死。", "Size the mask from T (scores.shape[-1]); do not hard-code it."),
    )


@pytest.mark.points(1)
def test_huge_future_scores(sub):
    """未来的分数再大也没有权重 / huge future scores still get no weight"""
    scores = torch.triu(torch.full((1, 4, 4), 1e4), diagonal=1)
    w = sub.causal_weights(scores)
    expect(
        tuple(w.shape) == (1, 4, 4) and bool(torch.isfinite(w).all()) and bool((w[0].triu(1) == 0).all()),
        t("未来位置的分数为 10000 时的权重", "the weights when every future score is 10000"),
        fmt(w),
        t("未来位置权重为 0，没有 NaN", "zero weight on the future, no NaN").inline(),
        t("掩码必须在 softmax 之前，用 -inf 替换（而不是加上）未来的分数。", "Mask before softmax, replacing (not adding to) the future scores with -inf."),
    )
