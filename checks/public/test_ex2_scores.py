"""ex2_scores: public checks."""

import pytest
import torch

from grader.authoring.checking import expect_close, pick, randn, t
from grader.authoring.worked_examples import expect_example


def diagnoses(q, k, want):
    hs = q.shape[-1]
    return [
        (want.transpose(-2, -1), t("结果转置了：行对应查询，列对应键（q @ kᵀ，不是 k @ qᵀ）。", "Your result is transposed: rows are queries, columns are keys (q @ kᵀ, not k @ qᵀ).")),
        (want * hs**-0.5, t("你已经按 √head_size 缩放了：这一步只要点积本身，缩放是 ex3 的事。", "You already scaled by √head_size: this step returns the plain dot products; scaling is ex3's.")),
    ]


EXAMPLE = """
>>> q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # B=1, T=2, hs=2
>>> k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
>>> attention_scores(q, k)
tensor([[[3., 0.],
         [4., 2.]]])
"""


@pytest.mark.points(1)
def test_small_example(sub, ref):
    """文档里手算的小例子 / the docstring's small example you can do by hand"""
    q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])
    k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
    want = ref.attention_scores(q, k)
    expect_example(sub, ref, EXAMPLE, diagnoses={0: lambda: diagnoses(q, k, want)})


@pytest.mark.points(3)
def test_random_batch(sub, ref):
    """随机的一批查询和键 / a random batch of queries and keys"""
    # B, T and hs all differ; other sizes at the teacher's grading, so no size can be hard-coded.
    B, T, hs = pick(20, (2, 5, 3), (3, 4, 6), (4, 6, 5), (5, 3, 4))
    q, k = randn(B, T, hs, seed=21), randn(B, T, hs, seed=22)
    want = ref.attention_scores(q, k)
    expect_close(
        sub.attention_scores(q, k),
        want,
        what=t(f"q、k 的形状都是 (B, T, hs) = ({B}, {T}, {hs})", f"q and k of shape (B, T, hs) = ({B}, {T}, {hs})"),
        diagnoses=lambda: diagnoses(q, k, want),
    )


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """float64 进，float64 出 / the dtype is kept: float64 in, float64 out"""
    q, k = randn(2, 4, 3, seed=221, dtype=torch.float64), randn(2, 4, 3, seed=222, dtype=torch.float64)
    expect_close(sub.attention_scores(q, k), ref.attention_scores(q, k), what=t("float64 的 q、k (2, 4, 3)：结果也是 float64", "float64 q and k of shape (2, 4, 3): the result is float64 too"))
