"""ex1_averaging: hidden checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, randn, t


@pytest.mark.points(1)
def test_matrix_is_float_and_size_one(sub, ref):
    """浮点类型；T = 1 / a float tensor; T = 1"""
    w = sub.averaging_matrix(5)
    expect(
        w.dtype == torch.float32,
        t("averaging_matrix(5) 的类型", "the dtype of averaging_matrix(5)"),
        str(w.dtype),
        "torch.float32",
        t("整数矩阵做不了 1/(i+1)；用 torch.ones 之类的浮点张量。", "An integer matrix cannot hold 1/(i+1); start from a float tensor such as torch.ones."),
    )
    expect_close(sub.averaging_matrix(1), ref.averaging_matrix(1), what=t("averaging_matrix(1)", "averaging_matrix(1)"))


@pytest.mark.points(2)
def test_average_past_ignores_the_future(sub):
    """改动后面的位置不影响前面的输出 / changing later positions leaves earlier outputs alone"""
    x = randn(2, 6, 4, seed=12)
    y = x.clone()
    y[:, 3:] = randn(2, 3, 4, seed=13) * 10
    a, b = sub.average_past(x), sub.average_past(y)
    expect(
        tuple(a.shape) == (2, 6, 4) and torch.allclose(a[:, :3], b[:, :3], atol=1e-6),
        t("只改动位置 3..5 后，位置 0..2 的输出", "outputs at positions 0..2 after changing only positions 3..5"),
        t("变了", "they changed").inline(),
        t("不变", "unchanged").inline(),
        t("位置 t 只能用到 0..t：检查矩阵是不是下三角、是不是放在 x 的左边。", "Position t may only use 0..t: is the matrix lower-triangular and on the left of x?"),
    )


@pytest.mark.points(1)
def test_average_past_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    x = randn(3, 4, 2, seed=14, dtype=torch.float64)
    # The tolerance is float32's: a matrix built in float32 and cast, and an exact
    # float64 running mean, are both right; what is checked is the dtype.
    expect_close(sub.average_past(x), ref.average_past(x), what=t("float64 的 x (3, 4, 2)", "float64 x of shape (3, 4, 2)"), atol=1e-6, rtol=1e-6)


@pytest.mark.points(1)
def test_average_past_other_sizes(sub, ref):
    """T = 1 与更长的 T / T = 1 and a longer T"""
    for shape, seed in (((4, 1, 3), 15), ((1, 9, 2), 16)):
        x = randn(*shape, seed=seed)
        expect_close(sub.average_past(x), ref.average_past(x), what=t(f"average_past(x)，x 的形状为 {shape}", f"average_past(x) with x of shape {shape}"))
