"""ex1_averaging: public checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, randn, t


@pytest.mark.points(2)
def test_matrix_of_four(sub, ref):
    """averaging_matrix(4) 的数值 / the values of averaging_matrix(4)"""
    want = ref.averaging_matrix(4)
    expect_close(
        sub.averaging_matrix(4),
        want,
        what=t("averaging_matrix(4)", "averaging_matrix(4)"),
        hint=t(
            "下三角全 1 矩阵（torch.tril），每行除以这一行的和：第 i 行是 i+1 个 1/(i+1)。",
            "A lower-triangular matrix of ones (torch.tril), each row divided by its sum: row i holds i+1 copies of 1/(i+1).",
        ),
        diagnoses=[
            (want.T.contiguous(), t("你的矩阵是上三角：要用 torch.tril，不是 torch.triu。", "Your matrix is upper-triangular: use torch.tril, not torch.triu.")),
            (torch.tril(torch.ones(4, 4)), t("没有归一化：每行要除以这一行的和。", "Not normalised: divide each row by its sum.")),
            (torch.tril(torch.ones(4, 4)) / 4, t("你每行都除以了 T；第 i 行应除以 i+1。", "You divided every row by T; row i must be divided by i+1.")),
        ],
    )


@pytest.mark.points(1)
def test_rows_sum_to_one_no_future(sub):
    """每行和为 1，对角线以上为 0 / rows sum to 1, zero above the diagonal"""
    w = sub.averaging_matrix(7)
    expect(tuple(w.shape) == (7, 7), t("averaging_matrix(7) 的形状", "the shape of averaging_matrix(7)"), str(tuple(w.shape)), "(7, 7)")
    expect(
        torch.allclose(w.double().sum(-1), torch.ones(7, dtype=torch.float64), atol=1e-6),
        t("averaging_matrix(7) 每行之和", "the sum of each row of averaging_matrix(7)"),
        fmt(w.double().sum(-1)),
        "[1, 1, 1, 1, 1, 1, 1]",
        t("每行是一组权重，加起来要等于 1。", "Each row is a set of weights and must add up to 1."),
    )
    expect(
        bool((torch.triu(w, diagonal=1) == 0).all()),
        t("averaging_matrix(7) 对角线以上的格子", "the entries of averaging_matrix(7) above the diagonal"),
        t("有不为 0 的格子", "some are not 0").inline(),
        t("全部为 0", "all exactly 0").inline(),
        t("位置 i 只能平均 0..i，不能用到未来（j > i）。", "Position i averages 0..i only, never the future (j > i)."),
    )


@pytest.mark.points(2)
def test_average_past_random(sub, ref):
    """对随机输入求前文平均 / averaging the past of a random batch"""
    x = randn(2, 5, 3, seed=11)  # B, T, C all differ
    expect_close(
        sub.average_past(x),
        ref.average_past(x),
        what=t("average_past(x)，x 的形状为 (2, 5, 3)", "average_past(x) with x of shape (2, 5, 3)"),
        hint=t(
            "矩阵在左边：averaging_matrix(T) @ x，(T, T) @ (B, T, C) -> (B, T, C)。",
            "The matrix goes on the left: averaging_matrix(T) @ x, (T, T) @ (B, T, C) -> (B, T, C).",
        ),
        diagnoses=[(x.mean(1, keepdim=True).expand_as(x), t("你对所有位置取了平均，包括未来的位置。", "You averaged over all positions, the future included."))],
    )
