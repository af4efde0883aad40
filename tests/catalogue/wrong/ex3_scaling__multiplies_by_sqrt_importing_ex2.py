"""ex3 mistake: multiplies by the square root of head_size, in a file that imports ex2 (the grader's while ex3 is graded) and must still be graded on its own code.
zh: 乘以 head_size 的平方根；文件还导入了 ex2（评 ex3 时那是评分程序自己的 ex2），评分仍然只看它自己的代码。
"""
# submitted with: the stub of ex2_scores
# diagnosis: You multiplied by the square root
import torch
from ex2_scores import attention_scores


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """scores * sqrt(head_size): the wrong way round."""
    return scores * head_size**0.5


def scaled_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """A helper of the student's own: ex2's scores, scaled."""
    return scale_scores(attention_scores(q, k), q.shape[-1])
