"""ex2_scores: hidden checks."""

import pytest
import torch

from grader.authoring.checking import expect_close, pick, randn, t
from grader.authoring.domain_checks import expect_function


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
    """只有一个位置（T = 1）/ a single position (T = 1)"""
    expect_function(sub, ref, "attention_scores", seed=25, T=1)


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    expect_function(sub, ref, "attention_scores", seed=27, dtype=torch.float64)


@pytest.mark.points(1)
def test_head_size_one(sub, ref):
    """定义域里的大小和内存布局，hs = 1 也在内 / the domain's sizes and memory layouts, hs = 1 included"""
    expect_function(sub, ref, "attention_scores", seed=29, backward=True)
