"""ex0_weighted_sum: public checks."""
import pytest
import torch

from grader.checking import expect, expect_close, randn, t

VALUES = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])


@pytest.mark.points(2)
def test_worked_example(sub, ref):
    """课文里的例子 / the worked example"""
    scores = torch.tensor([2.0, 1.0, 0.0])
    expect_close(
        sub.weighted_sum(scores, VALUES),
        ref.weighted_sum(scores, VALUES),
        what=t(
            "weighted_sum([2, 1, 0], [[1, 0], [0, 2], [2, 2]])：权重约 [0.665, 0.245, 0.090]",
            "weighted_sum([2, 1, 0], [[1, 0], [0, 2], [2, 2]]): weights about [0.665, 0.245, 0.090]",
        ),
        hint=t(
            "先对分数做 softmax 得到和为 1 的权重，再用权重对 values 的各行求和。",
            "Softmax the scores into weights that add up to 1, then sum the rows of values with those weights.",
        ),
        atol=1e-4,
        diagnoses=[
            (scores @ VALUES, t("你直接用了原始分数当权重，忘了 softmax。", "You used the raw scores as weights: softmax is missing.")),
            (VALUES.sum(0), t("你把各行直接相加了，没有乘权重。", "You added the rows without weighting them.")),
        ],
    )


@pytest.mark.points(1)
def test_equal_scores_average(sub, ref):
    """分数全为 0 时就是平均 / all-zero scores give the plain average"""
    scores = torch.zeros(3)
    expect_close(
        sub.weighted_sum(scores, VALUES),
        ref.weighted_sum(scores, VALUES),
        what=t("weighted_sum([0, 0, 0], values)：三个权重都是 1/3", "weighted_sum([0, 0, 0], values): all three weights are 1/3"),
        hint=t(
            "分数相同，softmax 给出相同的权重；不要除以分数之和（这里是 0）。",
            "Equal scores give equal weights; do not divide by the sum of the scores (0 here).",
        ),
        atol=1e-4,
    )


@pytest.mark.points(2)
def test_batched_random(sub, ref):
    """一批随机输入，softmax 在最后一维 / a batch of random inputs, softmax over the last dim"""
    scores = randn(4, 5, seed=1)  # (B, T)
    values = randn(4, 5, 3, seed=2)  # (B, T, C): B, T and C all differ
    wrong_dim = (torch.softmax(scores, dim=0).unsqueeze(-2) @ values).squeeze(-2)
    expect_close(
        sub.weighted_sum(scores, values),
        ref.weighted_sum(scores, values),
        what=t("scores (4, 5)、values (4, 5, 3) 的随机输入", "random scores (4, 5) and values (4, 5, 3)"),
        hint=t(
            "softmax 要在最后一维（dim=-1，位置那一维）上做，每组分数各自归一化。",
            "Softmax over the last dimension (dim=-1, the positions), so each row of scores is normalised on its own.",
        ),
        diagnoses=[(wrong_dim, t("你在第 0 维上做了 softmax：应该是 dim=-1。", "You took softmax over dim 0: it must be dim=-1."))],
    )
