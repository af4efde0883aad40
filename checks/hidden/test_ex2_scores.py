"""ex2_scores: hidden checks."""
import pytest
import torch

from grader.checking import expect_close, pick, randn, t


@pytest.mark.points(2)
def test_batches_stay_apart(sub, ref):
    """不同样本互不混合 / samples in a batch do not mix"""
    B, T, hs = pick(23, (3, 4, 6), (4, 5, 3), (5, 3, 7))
    q, k = randn(B, T, hs, seed=23), randn(B, T, hs, seed=24)
    expect_close(
        sub.attention_scores(q, k),
        ref.attention_scores(q, k),
        what=t(f"B = {B}：第 b 个样本只和自己的键做点积", f"B = {B}: sample b is matched only with its own keys"),
    )


@pytest.mark.points(1)
def test_single_position(sub, ref):
    """只有一个位置 / a single position (T = 1)"""
    q, k = randn(2, 1, 4, seed=25), randn(2, 1, 4, seed=26)
    expect_close(sub.attention_scores(q, k), ref.attention_scores(q, k), what=t("T = 1：结果形状 (2, 1, 1)", "T = 1: the result has shape (2, 1, 1)"))


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    q, k = randn(2, 3, 5, seed=27, dtype=torch.float64), randn(2, 3, 5, seed=28, dtype=torch.float64)
    expect_close(sub.attention_scores(q, k), ref.attention_scores(q, k), what=t("float64 的 q、k", "float64 q and k"))


@pytest.mark.points(1)
def test_head_size_one(sub, ref):
    """head_size = 1 / head_size = 1"""
    q, k = randn(2, 5, 1, seed=29), randn(2, 5, 1, seed=30)
    expect_close(sub.attention_scores(q, k), ref.attention_scores(q, k), what=t("hs = 1：分数是两个数的乘积", "hs = 1: each score is a product of two numbers"))
