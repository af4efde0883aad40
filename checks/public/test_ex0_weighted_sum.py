"""ex0_weighted_sum: public checks."""

import pytest
import torch

from grader.authoring.checking import expect_close, pick, randn, t
from grader.authoring.domain_checks import expect_function
from grader.authoring.worked_examples import expect_example

VALUES = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])


def no_softmax(scores, values):
    """What the raw scores give as weights."""
    return (scores.unsqueeze(-2) @ values).squeeze(-2)


def by_sum(scores, values):
    """Weights made by dividing the scores by their sum instead of softmax."""
    return no_softmax(scores / scores.sum(-1, keepdim=True), values)


def row_matmul(scores, values):
    """weights @ values as on the page's one row: on a batch, (B, T) @ (B, T, C)
    broadcasts to (B, B, C), every row of weights against every row of values."""
    return torch.softmax(scores, dim=-1) @ values


ROW_MATMUL = t(
    "你写的是 weights @ values：对一行分数是对的，但对一批分数，(B, T) @ (B, T, C) 会广播成 (B, B, C)，"
    "每一行权重和每一组 values 都乘了一遍。先在 T 前面给权重加一维，变成 (B, 1, T)，"
    "每一行权重就只乘它自己那一组 values；乘完再去掉这一维。",
    "You computed weights @ values: right for one row of scores, but on a batch (B, T) @ (B, T, C) broadcasts to "
    "(B, B, C), every row of weights against every batch of values. Give the weights a dimension of size 1 before T, "
    "(B, 1, T), so that each row meets only its own batch of values; then drop that dimension again.",
)
BY_SUM = t(
    "你把分数除以分数之和当作权重；要用 softmax（分数之和可能是 0 或负数）。",
    "You divided the scores by their sum to make weights; use softmax (the sum can be 0 or negative).",
)
NO_SOFTMAX = t("你直接用了原始分数当权重，忘了 softmax。", "You used the raw scores as weights: softmax is missing.")
UNWEIGHTED = t("你把各行直接相加了，没有乘权重。", "You added the rows without weighting them.")
IGNORES_SCORES = t("你对各行取了平均，没有用到分数。", "You averaged the rows: the scores are not used.")


EXAMPLE = """
>>> scores = torch.tensor([2.0, 1.0, 0.0])
>>> values = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
>>> weighted_sum(scores, values).round(decimals=3)
tensor([0.8450, 0.6700])
>>> weighted_sum(torch.zeros(3), values).round(decimals=3)
tensor([1.0000, 1.3330])
"""


@pytest.mark.points(1)
def test_worked_example(sub, ref):
    """文档里的例子：权重约 [0.665, 0.245, 0.090]；分数全为 0 时是平均 / the docstring's example: weights about [0.665, 0.245, 0.090]; all-zero scores average"""
    scores = torch.tensor([2.0, 1.0, 0.0])
    expect_example(
        sub,
        ref,
        EXAMPLE,
        diagnoses={
            0: lambda: [(no_softmax(scores, VALUES).round(decimals=3), NO_SOFTMAX), (VALUES.sum(0).round(decimals=3), UNWEIGHTED), (VALUES.mean(0).round(decimals=3), IGNORES_SCORES)],
            1: lambda: [(VALUES.sum(0).round(decimals=3), UNWEIGHTED)],
        },
    )


@pytest.mark.points(1)
def test_equal_scores_average(sub, ref):
    """分数相同时就是平均；分数高的位置权重大 / equal scores give the plain average; a higher score pulls harder"""
    values = randn(3, 4, 2, seed=9)
    equal = randn(3, 1, seed=10).expand(3, 4).contiguous()  # each row one score, repeated
    expect_close(
        sub.weighted_sum(equal, values),
        ref.weighted_sum(equal, values),
        what=t("每一行的分数都相同：结果是 values 的平均", "every row's scores are equal: the result is the mean of values"),
        atol=1e-4,
        diagnoses=lambda: [(no_softmax(equal, values), NO_SOFTMAX), (values.sum(-2), UNWEIGHTED)],
    )
    raised = equal.clone()
    raised[:, 1] += 3.0
    expect_close(
        sub.weighted_sum(raised, values),
        ref.weighted_sum(raised, values),
        what=t("同样的分数，但位置 1 的分数高 3：结果偏向位置 1 的值", "the same scores with position 1 raised by 3: the result moves towards position 1's value"),
        atol=1e-4,
        diagnoses=lambda: [(values.mean(-2), IGNORES_SCORES), (no_softmax(raised, values), NO_SOFTMAX), (by_sum(raised, values), BY_SUM)],
    )


@pytest.mark.points(2)
def test_batched_random(sub, ref):
    """一批随机输入 / a batch of random inputs"""
    # B, T and C all differ; other sizes at the teacher's grading, so no size can be hard-coded.
    B, T, C = pick(3, (4, 5, 3), (5, 6, 2), (6, 4, 3), (3, 7, 4))
    scores = randn(B, T, seed=1)  # (B, T)
    values = randn(B, T, C, seed=2)  # (B, T, C)
    wrong_dim = (torch.softmax(scores, dim=0).unsqueeze(-2) @ values).squeeze(-2)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t(f"scores ({B}, {T})、values ({B}, {T}, {C}) 的随机输入", f"random scores ({B}, {T}) and values ({B}, {T}, {C})"),
        diagnoses=lambda: [
            (row_matmul(scores, values), ROW_MATMUL),
            (wrong_dim, t("你在第 0 维上做了 softmax：应该是 dim=-1。", "You took softmax over dim 0: it must be dim=-1.")),
            (no_softmax(scores, values), NO_SOFTMAX),
            (values.mean(-2), IGNORES_SCORES),
            (by_sum(scores, values), BY_SUM),
        ],
    )


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """float64 进，float64 出 / the dtype is kept: float64 in, float64 out"""
    scores, values = randn(2, 5, seed=201, dtype=torch.float64), randn(2, 5, 3, seed=202, dtype=torch.float64)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t("float64 的 scores (2, 5) 和 values (2, 5, 3)：结果也是 float64", "float64 scores (2, 5) and values (2, 5, 3): the result is float64 too"),
    )


@pytest.mark.points(1)
def test_batch_dims_none_or_two(sub, ref):
    """定义域里的输入：没有或有几个批维度、T = 1、float64、转置、切片和广播的视图 / inputs from the whole domain: no batch dim or several, T = 1, float64, transposed, sliced and expanded views"""
    expect_function(sub, ref, "weighted_sum", seed=203, backward=True)
