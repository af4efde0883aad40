"""ex1_averaging: public checks."""

import pytest
import torch

from grader.authoring.checking import SubmissionFault, caused_by, expect, expect_close, fmt, pick, randn, t
from grader.authoring.upstream import matrix_behind_average
from grader.authoring.worked_examples import expect_example


def matrix_diagnoses(want: torch.Tensor) -> list:
    T = want.shape[-1]
    ones = torch.tril(torch.ones(T, T))
    upper = t("你的矩阵是上三角：要用 torch.tril，不是 torch.triu。", "Your matrix is upper-triangular: use torch.tril, not torch.triu.")
    return [
        (want.T.contiguous(), upper),
        (ones.T / ones.T.sum(1, keepdim=True), upper),
        (ones, t("没有归一化：每行要除以这一行的和。", "Not normalised: divide each row by its sum.")),
        (ones / T, t("你每行都除以了 T；第 i 行应除以 i+1。", "You divided every row by T; row i must be divided by i+1.")),
    ]


@pytest.mark.points(1)
def test_matrix_values(sub, ref):
    """averaging_matrix(T) 的数值 / the values of averaging_matrix(T)"""
    # A teacher's grading never asks for a T this file asks for in the student's own run (4, 7).
    T = pick(1, 4, 5, 6, 9, 10, 12)
    want = ref.averaging_matrix(T)
    # Any float dtype will do (the docstring says so): the values are compared, not the dtype.
    expect_close(sub.averaging_matrix(T), want, what=t(f"averaging_matrix({T})", f"averaging_matrix({T})"), diagnoses=lambda: matrix_diagnoses(want), check_dtype=False)


@pytest.mark.points(1)
def test_rows_sum_to_one_no_future(sub, ref):
    """每行和为 1，对角线以上为 0 / rows sum to 1, zero above the diagonal"""
    T = pick(2, 7, 8, 11, 13, 14)
    w = sub.averaging_matrix(T)
    expect(tuple(w.shape) == (T, T), t(f"averaging_matrix({T}) 的形状", f"the shape of averaging_matrix({T})"), str(tuple(w.shape)), f"({T}, {T})")
    expect(
        torch.allclose(w.double().sum(-1), torch.ones(T, dtype=torch.float64), atol=1e-6),
        t(f"averaging_matrix({T}) 每行之和", f"the sum of each row of averaging_matrix({T})"),
        fmt(w.double().sum(-1)),
        "[1, 1, ..., 1]",
        t("每行是一组权重，加起来要等于 1。", "Each row is a set of weights and must add up to 1."),
    )
    expect(
        bool((torch.triu(w, diagonal=1) == 0).all()),
        t(f"averaging_matrix({T}) 对角线以上的格子", f"the entries of averaging_matrix({T}) above the diagonal"),
        t("有不为 0 的格子", "some are not 0").inline(),
        t("全部为 0", "all exactly 0").inline(),
        t("对角线以上不为 0：位置 i 用到了未来（j > i）；它只能平均 0..i。", "Entries above the diagonal are not 0: position i uses the future (j > i); it may only average 0..i, never the future."),
        diagnosed=True,
    )
    want = ref.averaging_matrix(T)
    expect_close(w, want, what=t(f"averaging_matrix({T}) 的数值", f"the values of averaging_matrix({T})"), diagnoses=lambda: matrix_diagnoses(want), check_dtype=False)


@pytest.mark.points(1)
def test_average_past_random(sub, ref):
    """对随机输入求前文平均 / averaging the past of a random batch"""
    x = randn(2, 5, 3, seed=11)  # B, T, C all differ
    future = ref.averaging_matrix(5).T @ x  # asked here, not in a diagnosis (see checking.expect_close)
    # A wrong averaging_matrix that average_past multiplies by: that is what to fix, and no mistake of average_past's is named.
    with caused_by(lambda: matrix_behind_average(sub, [x])):
        expect_close(
            sub.average_past(x),
            ref.average_past(x),
            what=t("average_past(x)，x 的形状为 (2, 5, 3)", "average_past(x) with x of shape (2, 5, 3)"),
            diagnoses=lambda: [
                (x.mean(1, keepdim=True).expand_as(x), t("你对所有位置取了平均，包括未来的位置。", "You averaged over all positions, the future included.")),
                (future, t("你平均的是未来（位置 t..T-1）：矩阵要放在 x 的左边，wei @ x。", "You averaged the future (positions t..T-1): the matrix goes on the left of x, wei @ x.")),
            ],
        )


@pytest.mark.points(1)
def test_average_past_keeps_the_dtype(sub, ref):
    """average_past：float64 进，float64 出 / average_past keeps the dtype: float64 in, float64 out"""
    x = randn(2, 4, 3, seed=211, dtype=torch.float64)
    try:
        got = sub.average_past(x)
    except SubmissionFault as exc:
        # averaging_matrix(T) @ x with a float32 matrix and a float64 x: torch refuses to mix them.
        if "Double" in exc.fault.detail or "Double" in exc.fault.message.en:
            exc.fault.detail += "\n" + str(
                t(
                    "矩阵和 x 的 dtype 不同，不能相乘：相乘之前先把矩阵转换成 x 的 dtype（张量的 .to 方法）。",
                    "The matrix and x have different dtypes and cannot be multiplied: convert the matrix to x's dtype (a tensor's .to method) before multiplying.",
                )
            )
        raise
    # Values to float32's precision: a float32 matrix brought to float64 and an
    # exact float64 one are both right; what is checked is the dtype.
    with caused_by(lambda: matrix_behind_average(sub, [x])):
        expect_close(
            got,
            ref.average_past(x),
            what=t("float64 的 x (2, 4, 3)：结果也是 float64", "float64 x of shape (2, 4, 3): the result is float64 too"),
            atol=1e-6,
            rtol=1e-6,
        )


MATRIX_EXAMPLE = """
>>> averaging_matrix(3)
tensor([[1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.3333, 0.3333, 0.3333]])
"""
AVERAGE_EXAMPLE = """
>>> x = torch.tensor([[[2.0], [4.0], [9.0]]])  # B=1, T=3, C=1
>>> average_past(x).flatten()
tensor([2., 3., 5.])
"""


@pytest.mark.points(1)
def test_docstring_example_averaging_matrix(sub, ref):
    """文档里的例子：averaging_matrix(3) / the docstring's example: averaging_matrix(3)"""
    expect_example(sub, ref, MATRIX_EXAMPLE, check_dtype=False)  # any float dtype will do, as the docstring says


@pytest.mark.points(1)
def test_docstring_example_average_past(sub, ref):
    """文档里的例子：[2, 4, 9] 的前缀平均是 [2, 3, 5] / the docstring's example: the running means of [2, 4, 9] are [2, 3, 5]"""
    expect_example(sub, ref, AVERAGE_EXAMPLE)
