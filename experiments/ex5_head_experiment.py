"""ex5 实验：一步一步算一个注意力头，再看它是不是真的看不见未来。
ex5 experiment: one attention head, step by step, and a look at whether it really cannot see the future.

只用 torch，不用你的代码：ex5 没做完也能运行。改一改 T 或 head_size，或者去掉掩码那一行，再运行一次：
Plain torch, none of your code: it runs before ex5 is solved. Change T or
head_size, or drop the masking line, and run it again:

    tox exec -e grade -- python experiments/ex5_head_experiment.py
"""

import torch

torch.manual_seed(0)
B, T, n_embd, head_size = 1, 4, 8, 4

# 三个矩阵把每个位置的 n_embd 个数变成 head_size 个数；你的 Head 用三个不带偏置的
# nn.Linear 做同样的事，它们的权重会在训练中学到
# three matrices turn each position's n_embd numbers into head_size numbers; your Head
# does the same with three nn.Linear layers without bias, whose weights are learned
W_query = torch.randn(n_embd, head_size) / n_embd**0.5
W_key = torch.randn(n_embd, head_size) / n_embd**0.5
W_value = torch.randn(n_embd, head_size) / n_embd**0.5


def head(x):
    T = x.shape[1]
    q = x @ W_query  # (B, T, hs) 1. 每个位置用查询提问 / each position asks with its query
    k = x @ W_key  # (B, T, hs)   2. 每个位置用键回答 / each position offers its key
    scores = q @ k.transpose(-2, -1) / head_size**0.5  # (B, T, T) 3. 点积，再缩放 / dot products, scaled
    future = torch.ones(T, T).triu(diagonal=1).bool()  # 对角线以上是未来 / above the diagonal: the future
    scores = scores.masked_fill(future, float("-inf"))  # 遮住未来 / hide the future
    weights = torch.softmax(scores, dim=-1)  # (B, T, T) 4. 每行和为 1 / each row adds up to 1
    v = x @ W_value  # (B, T, hs)  5. 值带着信息 / the values carry the information
    return weights, weights @ v  # (B, T, hs) 6. 权重乘值再相加 / weights times values, summed


x = torch.randn(B, T, n_embd)  # (B, T, n_embd)
weights, out = head(x)

print("x.shape          ", tuple(x.shape))
print("权重 weights (T, T):")
for i, row in enumerate(weights[0].tolist()):
    print(f"  位置 position {i}:", " ".join(f"{w:5.3f}" for w in row))
print("out.shape        ", tuple(out.shape))
print("参数 parameters  ", sum(W.numel() for W in (W_query, W_key, W_value)), "= 3 ×", n_embd, "×", head_size)

# 只改最后一个位置：前面位置的输出一点都不变 / change only the last position: earlier outputs do not move at all
y = x.clone()
y[:, T - 1] = 100.0
_, out_y = head(y)
print("改了最后一个字，前面的输出不变 last one changed, earlier outputs the same:", torch.equal(out[:, : T - 1], out_y[:, : T - 1]))
print("最后一个位置的输出变了 the last position's output changed:", not torch.equal(out[:, T - 1], out_y[:, T - 1]))
