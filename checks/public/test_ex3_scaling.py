"""ex3_scaling: public checks."""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, fmt, pick, randn, t
from grader.authoring.worked_examples import expect_example


def diagnoses(scores, head_size):
    return [
        (scores / head_size, t("你除以了 head_size 本身；应除以它的平方根。", "You divided by head_size itself; divide by its square root.")),
        (scores * head_size**0.5, t("你乘了平方根；应该除以它（指数是 -0.5）。", "You multiplied by the square root; divide by it (the power is -0.5).")),
        (scores * scores.shape[-1] ** -0.5, t("你按 T（scores.shape[-1]）缩放了；要用 head_size。", "You scaled by T (scores.shape[-1]); use head_size.")),
    ]


EXAMPLE = """
>>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
tensor([[ 2., -1.]])
"""


@pytest.mark.points(1)
def test_example(sub, ref):
    """文档里 head_size = 16 的例子：除以 √16 = 4 / the docstring's example with head_size = 16: divide by √16 = 4"""
    scores = torch.tensor([[8.0, -4.0]])
    expect_example(sub, ref, EXAMPLE, diagnoses={0: lambda: diagnoses(scores, 16)[:2]})


@pytest.mark.points(2)
def test_uses_head_size_not_shape(sub, ref):
    """用的是 head_size 参数，不是张量的某一维 / scales by head_size, not by a size of the tensor"""
    scores = randn(2, 5, 5, seed=31)
    head_size = pick(32, 8, 9, 12, 20, 32)  # never T = 5: any shape-based guess is wrong
    expect_close(
        sub.scale_scores(scores, head_size),
        ref.scale_scores(scores, head_size),
        what=t(f"scores 形状 (2, 5, 5)，head_size = {head_size}", f"scores of shape (2, 5, 5) with head_size = {head_size}"),
        diagnoses=lambda: diagnoses(scores, head_size),
    )


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """float64 进，float64 出 / the dtype is kept: float64 in, float64 out"""
    scores = randn(3, 4, 4, seed=231, dtype=torch.float64)
    expect_close(
        sub.scale_scores(scores, 16), ref.scale_scores(scores, 16), what=t("float64 的 scores，head_size = 16：结果也是 float64", "float64 scores with head_size = 16: the result is float64 too")
    )


@pytest.mark.points(1)
def test_leaves_the_scores_alone(sub, ref):
    """传进来的 scores 保持不变 / the scores passed in stay as they are"""
    scores = randn(2, 4, 4, seed=232)
    got, (after, _) = sub.call_keeping_args("scale_scores", scores, 16)
    expect(
        torch.equal(after, scores),
        t("调用 scale_scores(scores, 16) 之后，传进去的 scores", "the scores passed in, after scale_scores(scores, 16) returns"),
        fmt(after[0]),
        fmt(scores[0]),
        t("传进去的张量被改动了：不要原地修改（scores *= ...、mul_），返回一个新张量。", "The tensor passed in was changed: do not modify in place (scores *= ..., mul_); return a new tensor."),
        diagnosed=True,
    )
    expect_close(got, ref.scale_scores(scores, 16), what=t("scale_scores(scores, 16)", "scale_scores(scores, 16)"))
