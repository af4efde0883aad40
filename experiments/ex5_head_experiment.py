"""ex5 实验：一步一步算一个注意力头，再看它是不是真的看不见未来。
ex5 experiment: one attention head, step by step, and a look at whether it really cannot see the future.

只用 torch，不用你的代码：ex5 没做完也能运行。改一改 T 或 head_size，或者去掉掩码那一行，再运行一次：
Plain torch, none of your code: it runs before ex5 is solved. Change T or
head_size, or drop the masking line, and run it again:

    tox exec -e grade -- python experiments/ex5_head_experiment.py
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
B, T, n_embd, head_size, block_size = 1, 4, 8, 4, 6

# 三个不带偏置的线性层 / three linear layers without bias
query = nn.Linear(n_embd, head_size, bias=False)
key = nn.Linear(n_embd, head_size, bias=False)
value = nn.Linear(n_embd, head_size, bias=False)
# 掩码按最长的上下文建一次；真正的 Head 用 register_buffer 存它
# the mask is built once for the longest context; the real Head keeps it with register_buffer
tril = torch.tril(torch.ones(block_size, block_size))


def head(x):
    T = x.shape[1]
    q = query(x)  # (B, T, hs) 1. 每个位置用查询提问 / each position asks with its query
    k = key(x)  # (B, T, hs)   2. 每个位置用键回答 / each position offers its key
    scores = q @ k.transpose(-2, -1) * head_size**-0.5  # (B, T, T) 3. 点积，再缩放 / dot products, scaled
    scores = scores.masked_fill(tril[:T, :T] == 0, float("-inf"))  # 切到 T，遮住未来 / cut to T, hide the future
    weights = torch.softmax(scores, dim=-1)  # (B, T, T) 4. 每行和为 1 / each row adds up to 1
    v = value(x)  # (B, T, hs)  5. 值带着信息 / the values carry the information
    return weights, weights @ v  # (B, T, hs) 6. 权重乘值再相加 / weights times values, summed


x = torch.randn(B, T, n_embd)  # (B, T, n_embd)
with torch.no_grad():
    weights, out = head(x)

print("x.shape          ", tuple(x.shape))
print("权重 weights (T, T):")
for i, row in enumerate(weights[0].tolist()):
    print(f"  位置 position {i}:", " ".join(f"{w:5.3f}" for w in row))
print("out.shape        ", tuple(out.shape))
print("参数 parameters  ", sum(layer.weight.numel() for layer in (query, key, value)), "= 3 ×", n_embd, "×", head_size)

# 只改最后一个位置：前面位置的输出一点都不变 / change only the last position: earlier outputs do not move at all
y = x.clone()
y[:, T - 1] = 100.0
with torch.no_grad():
    _, out_y = head(y)
print("改了最后一个字，前面的输出不变 last one changed, earlier outputs the same:", torch.equal(out[:, : T - 1], out_y[:, : T - 1]))
print("最后一个位置的输出变了 the last position's output changed:", not torch.equal(out[:, T - 1], out_y[:, T - 1]))
