"""ex3_scaling: hidden checks."""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, fmt, randn, t
from grader.authoring.domain_checks import expect_function


@pytest.mark.points(2)
def test_input_left_unchanged(sub, ref):
    """不改动传进来的张量 / the input tensor is left unchanged"""
    scores = randn(2, 3, 3, seed=32)
    got, (after, _) = sub.call_keeping_args("scale_scores", scores, 4)
    expect(
        torch.equal(after, scores),
        t("调用 scale_scores 之后，传进去的 scores", "the scores passed in, after scale_scores returns"),
        fmt(after[0]),
        fmt(scores[0]),
        t("传进去的张量被改动了：不要原地修改（scores *= ...、mul_），返回一个新张量。", "The tensor passed in was changed: do not modify in place (scores *= ..., mul_); return a new tensor."),
        diagnosed=True,
    )
    expect_close(got, ref.scale_scores(scores, 4), what=t("scale_scores(scores, 4)", "scale_scores(scores, 4)"))


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    expect_function(sub, ref, "scale_scores", seed=33, dtype=torch.float64)


@pytest.mark.points(1)
def test_head_size_one_and_four(sub, ref):
    """head_size = 1 时不变，4 时减半 / head_size = 1 leaves scores as they are, 4 halves them"""
    scores = randn(3, 2, 2, seed=34)
    for head_size in (1, 4):
        expect_close(sub.scale_scores(scores, head_size), ref.scale_scores(scores, head_size), what=t(f"head_size = {head_size}", f"head_size = {head_size}"))


@pytest.mark.points(1)
def test_any_shape(sub, ref):
    """任意形状（0 维也算），任意 head_size，任意内存布局 / any shape (0-d included), any head_size, any memory layout"""
    # head_size 1, squares and non-squares: a root taken in integers (isqrt) is right on squares alone.
    expect_function(sub, ref, "scale_scores", seed=35, backward=True)
