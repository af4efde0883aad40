"""ex0_weighted_sum: hidden checks."""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, fmt, pick, randn, t
from grader.authoring.domain_checks import expect_function

OVERFLOW = t(
    "分数约为 1000 时结果不是有限数：exp(1000) 溢出成了 inf。先减去最大分数再取指数（torch.softmax 已经这样做了）。",
    "With scores of about 1000 the result is not finite: exp(1000) overflows to inf. Subtract the largest score before exp (torch.softmax already does).",
)
ONE_SHIFT_FOR_ALL = t(
    "分数约为 0 的那一行不是有限数，约为 1000 的那一行却是：整批减去了同一个数（全局的最大分数），小分数那一行的 exp 全都下溢成 0，0/0 得到 NaN。"
    "每一行要减去它自己的最大分数（在最后一维上取最大值）。",
    "The row of scores about 0 is not finite while the row of about 1000 is: one number (the largest score of the whole batch) was subtracted from every row, "
    "so every exp of the small row underflows to 0, and 0/0 is NaN. Subtract from each row its own largest score (the max over the last dim).",
)
NOT_THE_ROW_MAX = t(
    "分数从约 0 到约 1000 的那一行不是有限数：每行减去的不是这一行的最大分数（比如平均值或第一个分数），最大的那个 exp 仍然溢出。减去每行的最大分数，所有指数就都不大于 0。",
    "The row whose scores run from about 0 to about 1000 is not finite: what each row was shifted by is not its largest score (its mean or its first score, say), "
    "so exp of the largest still overflows. Subtract each row's largest score: then no exponent is above 0.",
)


def _overflow_hint(not_finite: list[bool]):
    """What the rows that are not finite say (rows: about 1000, about 0, from 0 to 1000)."""
    large, small, spread = not_finite
    if large:
        return OVERFLOW
    if small:
        return ONE_SHIFT_FOR_ALL
    if spread:
        return NOT_THE_ROW_MAX
    return None


@pytest.mark.points(2)
def test_large_scores_do_not_overflow(sub, ref):
    """很大的分数不溢出 / large scores do not overflow"""
    # Each row on another scale, all in the promise ("scores may be large, say
    # 1000"): a shift by one number for the whole batch leaves the small row to
    # underflow, and a shift by anything but the row's own max overflows the
    # spread row. Row 2's largest score is never its first.
    noise = 3 * randn(3, 4, seed=3)
    scores = noise + torch.tensor([[1000.0] * 4, [0.0] * 4, [0.0, 1000.0, 500.0, 0.0]])
    values = randn(3, 4, 2, seed=4)
    what = t(
        "weighted_sum(scores, values)，scores 三行：约 1000；约 0；从约 0 到约 1000",
        "weighted_sum(scores, values) with three rows of scores: about 1000; about 0; from about 0 to about 1000",
    )
    got = sub.weighted_sum(scores, values)
    fits = tuple(got.shape) == (3, 2) and got.is_floating_point()
    hint = _overflow_hint([not bool(torch.isfinite(row).all()) for row in got]) if fits else None
    expect(
        not fits or bool(torch.isfinite(got).all()),
        what,
        fmt(got),
        t("有限的数", "finite numbers").inline(),
        hint,
        diagnosed=hint is not None,
    )
    expect_close(got, ref.weighted_sum(scores, values), what=what, atol=1e-4)


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    expect_function(sub, ref, "weighted_sum", seed=5, dtype=torch.float64)


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
    # A batch dim of size 1 is a batch dim like any other: it stays in the result.
    lone_s, lone_v = randn(1, T, seed=14), randn(1, T, C, seed=15)
    want = ref.weighted_sum(lone_s, lone_v)
    expect_close(
        sub.weighted_sum(lone_s, lone_v),
        want,
        what=t(f"一批只有一行：scores (1, {T})、values (1, {T}, {C})，结果 (1, {C})", f"a batch of one row: scores (1, {T}) and values (1, {T}, {C}), the result (1, {C})"),
        diagnoses=lambda: [
            (
                want.squeeze(),
                t(
                    "大小为 1 的批维度被去掉了：去掉所有大小为 1 的维度，也去掉了批维度。只去掉你自己加上的那一维。",
                    "The batch dim of size 1 was dropped: removing every dim of size 1 removes batch dims too. Remove only the dim you added yourself.",
                ),
            )
        ],
    )
