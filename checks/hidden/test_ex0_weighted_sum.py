"""ex0_weighted_sum: hidden checks."""
import pytest
import torch

from grader.checking import expect, expect_close, randn, t


@pytest.mark.points(2)
def test_large_scores_do_not_overflow(sub, ref):
    """很大的分数不溢出 / large scores do not overflow"""
    scores = torch.tensor([1000.0, 999.0, 0.0])
    values = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    got = sub.weighted_sum(scores, values)
    expect(
        bool(torch.isfinite(got).all()),
        t("weighted_sum([1000, 999, 0], values)", "weighted_sum([1000, 999, 0], values)"),
        str(got.tolist()),
        t("有限的数", "finite numbers").inline(),
        t(
            "exp(1000) 会溢出成 inf。先减去最大分数再取指数（torch.softmax 已经这样做了）。",
            "exp(1000) overflows to inf. Subtract the largest score before exp (torch.softmax already does).",
        ),
    )
    expect_close(got, ref.weighted_sum(scores, values), what=t("weighted_sum([1000, 999, 0], values)", "weighted_sum([1000, 999, 0], values)"), atol=1e-4)


@pytest.mark.points(2)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    scores = randn(3, 4, seed=3, dtype=torch.float64)
    values = randn(3, 4, 2, seed=4, dtype=torch.float64)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t("float64 的 scores (3, 4) 和 values (3, 4, 2)", "float64 scores (3, 4) and values (3, 4, 2)"),
        atol=1e-10,
        rtol=1e-8,
    )


@pytest.mark.points(1)
def test_more_batch_dims_and_one_position(sub, ref):
    """多个批维度；只有一个位置 / several batch dims; a single position"""
    scores, values = randn(2, 3, 4, seed=5), randn(2, 3, 4, 5, seed=6)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t("scores (2, 3, 4)、values (2, 3, 4, 5)", "scores (2, 3, 4) and values (2, 3, 4, 5)"),
        hint=t("用 ... 和 dim=-1 写，不要假定输入只有一维或两维。", "Write it with dim=-1 and broadcasting; do not assume one or two dims."),
    )
    one_s, one_v = randn(2, 1, seed=7), randn(2, 1, 3, seed=8)
    expect_close(
        sub.weighted_sum(one_s, one_v),
        ref.weighted_sum(one_s, one_v),
        what=t("只有一个位置（T = 1）：输出就是那个位置的值", "a single position (T = 1): the output is that position's value"),
    )
