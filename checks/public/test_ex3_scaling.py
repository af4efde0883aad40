"""ex3_scaling: public checks."""
import pytest
import torch

from grader.checking import expect_close, randn, t


@pytest.mark.points(2)
def test_example(sub, ref):
    """head_size = 16 的例子 / an example with head_size = 16"""
    scores = torch.tensor([[8.0, -4.0]])
    expect_close(
        sub.scale_scores(scores, 16),
        ref.scale_scores(scores, 16),
        what=t("scale_scores([[8, -4]], head_size=16)：除以 √16 = 4", "scale_scores([[8, -4]], head_size=16): divide by √16 = 4"),
        hint=t("乘以 head_size ** -0.5，也就是除以 head_size 的平方根。", "Multiply by head_size ** -0.5, i.e. divide by the square root of head_size."),
        diagnoses=[
            (scores / 16, t("你除以了 head_size 本身；应除以它的平方根。", "You divided by head_size itself; divide by its square root.")),
            (scores * 4, t("你乘了平方根；应该除以它（指数是 -0.5）。", "You multiplied by the square root; divide by it (the power is -0.5).")),
        ],
    )


@pytest.mark.points(3)
def test_uses_head_size_not_shape(sub, ref):
    """用的是 head_size 参数，不是张量的某一维 / scales by head_size, not by a size of the tensor"""
    scores = randn(2, 5, 5, seed=31)  # T = 5, head_size = 8: any shape-based guess is wrong
    expect_close(
        sub.scale_scores(scores, 8),
        ref.scale_scores(scores, 8),
        what=t("scores 形状 (2, 5, 5)，head_size = 8", "scores of shape (2, 5, 5) with head_size = 8"),
        hint=t(
            "缩放看的是查询和键的长度 head_size，不是 T 或 n_embd：用传进来的 head_size。",
            "The scale depends on the length of queries and keys (head_size), not on T or n_embd: use the head_size argument.",
        ),
        diagnoses=[(scores * 5**-0.5, t("你按 T（scores.shape[-1]）缩放了；要用 head_size。", "You scaled by T (scores.shape[-1]); use head_size."))],
    )
