"""ex0_weighted_sum: hidden checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, pick, randn, t


@pytest.mark.points(2)
def test_large_scores_do_not_overflow(sub, ref):
    """很大的分数不溢出 / large scores do not overflow"""
    scores = 1000 + 3 * randn(2, 3, seed=3)  # exp(1000) overflows float32
    values = randn(2, 3, 2, seed=4)
    got = sub.weighted_sum(scores, values)
    expect(
        tuple(got.shape) != (2, 2) or bool(torch.isfinite(got).all()),
        t("weighted_sum(约 1000 的分数, values)", "weighted_sum(scores of about 1000, values)"),
        fmt(got),
        t("有限的数", "finite numbers").inline(),
        t(
            "分数约为 1000 时结果不是有限数：exp(1000) 溢出成了 inf。先减去最大分数再取指数（torch.softmax 已经这样做了）。",
            "With scores of about 1000 the result is not finite: exp(1000) overflows to inf. Subtract the largest score before exp (torch.softmax already does).",
        ),
        diagnosed=True,
    )
    expect_close(got, ref.weighted_sum(scores, values), what=t("weighted_sum(约 1000 的分数, values)", "weighted_sum(scores of about 1000, values)"), atol=1e-4)


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    scores = randn(3, 4, seed=5, dtype=torch.float64)
    values = randn(3, 4, 2, seed=6, dtype=torch.float64)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t("float64 的 scores (3, 4) 和 values (3, 4, 2)", "float64 scores (3, 4) and values (3, 4, 2)"),
    )


@pytest.mark.points(1)
def test_more_batch_dims_and_one_position(sub, ref):
    """多个批维度；只有一个位置 / several batch dims; a single position"""
    A, B, T, C = pick(13, (2, 3, 4, 5), (3, 2, 5, 4), (2, 4, 3, 6))
    scores, values = randn(A, B, T, seed=7), randn(A, B, T, C, seed=8)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t(f"scores ({A}, {B}, {T})、values ({A}, {B}, {T}, {C})", f"scores ({A}, {B}, {T}) and values ({A}, {B}, {T}, {C})"),
    )
    one_s, one_v = randn(2, 1, seed=11), randn(2, 1, 3, seed=12)
    expect_close(
        sub.weighted_sum(one_s, one_v),
        ref.weighted_sum(one_s, one_v),
        what=t("只有一个位置（T = 1）：输出就是那个位置的值", "a single position (T = 1): the output is that position's value"),
    )
