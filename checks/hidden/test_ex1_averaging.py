"""ex1_averaging: hidden checks."""

import pytest
import torch

from grader.authoring.checking import caused_by, expect, expect_close, pick, randn, t
from grader.authoring.domain_checks import expect_function
from grader.authoring.upstream import drawn, matrix_behind_average


@pytest.mark.points(1)
def test_matrix_is_float_and_size_one(sub, ref):
    """浮点类型；T = 1 / a float tensor; T = 1"""
    T = pick(3, 5, 6, 8)
    w = sub.averaging_matrix(T)
    # Any float dtype is right (float32 or float64, as the docstring says); an integer one is not.
    expect(
        w.is_floating_point(),
        t(f"averaging_matrix({T}) 的类型", f"the dtype of averaging_matrix({T})"),
        str(w.dtype),
        t("浮点类型（float32 或 float64）", "a float dtype (float32 or float64)").inline(),
        t(
            "整数矩阵装不下 1/(i+1)：从浮点张量开始（例如 torch.ones 默认是 float32）。",
            "An integer matrix cannot hold 1/(i+1): start from a float tensor (torch.ones is float32 by default).",
        )
        if not w.is_complex()
        else None,
        diagnosed=not w.is_complex(),
    )
    expect_close(w, ref.averaging_matrix(T), what=t(f"averaging_matrix({T})", f"averaging_matrix({T})"), check_dtype=False)
    expect_close(sub.averaging_matrix(1), ref.averaging_matrix(1), what=t("averaging_matrix(1)", "averaging_matrix(1)"), check_dtype=False)


@pytest.mark.points(1)
def test_average_past_ignores_the_future(sub, ref):
    """改动后面的位置不影响前面的输出 / changing later positions leaves earlier outputs alone"""
    x = randn(2, 6, 4, seed=12)
    y = x.clone()
    y[:, 3:] = randn(2, 3, 4, seed=13) * 10
    a, b = sub.average_past(x), sub.average_past(y)
    future = ref.averaging_matrix(6).T
    with caused_by(lambda: matrix_behind_average(sub, [x])):
        expect_close(
            a,
            ref.average_past(x),
            what=t("average_past(x)，x 的形状为 (2, 6, 4)", "average_past(x) with x of shape (2, 6, 4)"),
            diagnoses=lambda: [
                (future @ x, t("你平均的是未来（位置 t..T-1）：矩阵要放在 x 的左边，wei @ x。", "You averaged the future (positions t..T-1): the matrix goes on the left of x, wei @ x."))
            ],
        )
    expect(
        tuple(a.shape) != (2, 6, 4) or tuple(b.shape) != (2, 6, 4) or torch.allclose(a[:, :3], b[:, :3], atol=1e-6),
        t("只改动位置 3..5 后，位置 0..2 的输出", "outputs at positions 0..2 after changing only positions 3..5"),
        t("变了", "they changed").inline(),
        t("不变", "unchanged").inline(),
        t("前面位置的输出随后面的位置变了：位置 t 用到了未来，它只能用 0..t。", "Earlier outputs changed with later positions: position t uses the future; it may only use 0..t."),
        diagnosed=True,
    )


@pytest.mark.points(1)
def test_average_past_float64(sub, ref):
    """average_past：float64 进，float64 出 / average_past: float64 in, float64 out"""
    with caused_by(lambda: matrix_behind_average(sub, drawn("average_past", 14, None, dtype=torch.float64))):
        expect_function(sub, ref, "average_past", seed=14, dtype=torch.float64)


@pytest.mark.points(1)
def test_average_past_other_sizes(sub, ref):
    """average_past：定义域里的大小和内存布局，T = 1 也在内 / average_past over the domain's sizes and memory layouts, T = 1 included"""
    with caused_by(lambda: matrix_behind_average(sub, drawn("average_past", 15))):
        expect_function(sub, ref, "average_past", seed=15, backward=True)
