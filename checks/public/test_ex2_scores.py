"""ex2_scores: public checks."""
import pytest
import torch

from grader.checking import expect_close, randn, t


@pytest.mark.points(2)
def test_small_example(sub, ref):
    """手算的小例子 / a small example you can do by hand"""
    q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])
    k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
    want = ref.attention_scores(q, k)
    expect_close(
        sub.attention_scores(q, k),
        want,
        what=t("q = [[1, 0], [1, 1]]，k = [[3, 1], [0, 2]]", "q = [[1, 0], [1, 1]], k = [[3, 1], [0, 2]]"),
        hint=t("第 i 行第 j 列是 q[i] 和 k[j] 的点积：q @ k 的转置。", "Row i, column j is the dot product of q[i] and k[j]: q @ k transposed."),
        diagnoses=[(want.transpose(-2, -1), t("结果转置了：行应该对应查询，列对应键（q @ kᵀ，不是 k @ qᵀ）。", "Your result is transposed: rows are queries, columns are keys (q @ kᵀ, not k @ qᵀ)."))],
    )


@pytest.mark.points(3)
def test_random_batch(sub, ref):
    """随机的一批查询和键 / a random batch of queries and keys"""
    q, k = randn(2, 5, 3, seed=21), randn(2, 5, 3, seed=22)  # B, T, hs all differ
    want = ref.attention_scores(q, k)
    expect_close(
        sub.attention_scores(q, k),
        want,
        what=t("q、k 的形状都是 (B, T, hs) = (2, 5, 3)", "q and k of shape (B, T, hs) = (2, 5, 3)"),
        hint=t(
            "只转置最后两维：k.transpose(-2, -1)。k.T 会把批维度也转过去。",
            "Transpose only the last two dims: k.transpose(-2, -1). k.T also moves the batch dim.",
        ),
        diagnoses=[(want.transpose(-2, -1), t("结果转置了：应为 q @ kᵀ。", "Your result is transposed: it should be q @ kᵀ."))],
    )
