"""ex6 实验：几个头拼起来、投影、残差、层归一化，每一步看形状。
ex6 experiment: several heads concatenated, a projection, a residual connection
and layer norm, with the shape at every step.

只用 torch，不用你的代码：ex6 没做完也能运行。改一改 n_embd 或 n_head，再运行一次：
Plain torch, none of your code: it runs before ex6 is solved. Change n_embd or
n_head and run it again:

    tox exec -e grade -- python experiments/ex6_block_experiment.py
"""

import torch
import torch.nn as nn

torch.manual_seed(0)
B, T, n_embd, n_head = 1, 4, 8, 2
head_size = n_embd // n_head  # 各个头平分 n_embd / the heads share n_embd between them
future = torch.ones(T, T).triu(diagonal=1).bool()  # 对角线以上是未来 / above the diagonal: the future


def one_head(x, W_query, W_key, W_value):
    """ex5 的六步，用矩阵代替线性层 / ex5's six steps, with matrices for the linear layers."""
    scores = (x @ W_query) @ (x @ W_key).transpose(-2, -1) / head_size**0.5  # (B, T, T)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ (x @ W_value)  # (B, T, head_size)


# 每个头有自己的三个矩阵 / each head has three matrices of its own
heads = [[torch.randn(n_embd, head_size) / n_embd**0.5 for _ in range(3)] for _ in range(n_head)]
proj = nn.Linear(n_embd, n_embd)
ln = nn.LayerNorm(n_embd)

x = torch.randn(B, T, n_embd)
with torch.no_grad():
    normed = ln(x)  # 前置归一化：先归一化再进注意力 / pre-norm: normalise before attention
    outs = [one_head(normed, *matrices) for matrices in heads]
    cat = torch.cat(outs, dim=-1)  # 在最后一维上拼接 / concatenated along the last dimension
    attended = proj(cat)  # 把各个头看到的东西合起来 / combines what the heads found
    y = x + attended  # 残差：把结果加回输入 / the residual: add the result back to the input

print("n_embd, n_head, head_size:", n_embd, n_head, head_size)
print("x             ", tuple(x.shape))
print("每个头 each head", [tuple(o.shape) for o in outs])
print("拼接 concat    ", tuple(cat.shape))
print("proj 之后 after", tuple(attended.shape))
print("x + sa(ln1(x)) ", tuple(y.shape))
# 层归一化只看每个位置自己的 n_embd 个数 / layer norm looks at each position's n_embd numbers on their own
print("ln(x) 每个位置的均值 mean per position    ", [round(m, 3) + 0.0 for m in normed.mean(-1)[0].tolist()])
print("ln(x) 每个位置的方差 variance per position", [round(v, 3) for v in normed.var(-1, unbiased=False)[0].tolist()])
# 没训练的块：有残差，输出仍然像输入；没有残差，输出和输入几乎无关
# an untrained block: with the residual the output still looks like the input; without it, hardly at all
cos = nn.functional.cosine_similarity
with_residual = cos(x.flatten(), y.flatten(), dim=0).item()
without_residual = cos(x.flatten(), attended.flatten(), dim=0).item()
print("cos(x, x + sa) 有残差 with residual   ", round(with_residual, 3))
print("cos(x, sa)     没有残差 without residual", round(without_residual, 3))
print("前馈层参数 feed-forward parameters:", sum(p.numel() for p in nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd)).parameters()))
