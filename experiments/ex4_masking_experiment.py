"""ex4 实验：用 −∞ 遮住未来，softmax 之后未来的权重恰好是 0。
ex4 experiment: hide the future with −inf, and after softmax its weights are exactly 0.

只用 torch，不用你的代码：ex4 没做完也能运行。改一改分数表，或者把 -inf 换成 0，再运行一次：
Plain torch, none of your code: it runs before ex4 is solved. Change the score
table, or replace -inf by 0, and run it again:

    tox exec -e grade -- python experiments/ex4_masking_experiment.py
"""

import torch

# 4 个位置的分数表：第 i 行第 j 列是位置 i 对位置 j 的分数，位置从 0 数起
# a score table for 4 positions: row i, column j is position i's score for position j, counting from 0
scores = torch.tensor(
    [
        [1.0, 2.0, 0.5, 3.0],
        [0.0, 1.0, 2.0, 1.0],
        [2.0, 0.0, 1.0, 0.5],
        [1.0, 1.0, 0.0, 2.0],
    ]
)
T = scores.shape[-1]

# tril 是下三角：j <= i 为 True，那是自己和过去 / tril is lower-triangular: True where j <= i, itself and the past
tril = torch.tril(torch.ones(T, T, dtype=torch.bool))  # (T, T)
masked = scores.masked_fill(~tril, float("-inf"))  # 对角线以上换成 -inf / -inf above the diagonal
weights = torch.softmax(masked, dim=-1)  # exp(-inf) = 0：未来的权重恰好是 0 / the future gets exactly 0


def show(name, matrix):
    print(name)
    for i, row in enumerate(matrix.tolist()):
        print(f"  位置 position {i}:", " ".join(f"{x:6.3f}" for x in row))


show("分数 scores", scores)
show("掩码之后 masked", masked)
show("权重 weights", weights)
print("每行之和 row sums ", [round(x, 3) for x in weights.sum(dim=-1).tolist()])

# 分数全为 0：每个位置平均它自己和它前面的位置，正是 ex1 的平均矩阵
# all scores 0: each position averages itself and the ones before it, which is ex1's averaging matrix
show("全 0 分数的权重 weights of all-zero scores", torch.softmax(torch.zeros(T, T).masked_fill(~tril, float("-inf")), dim=-1))

# 用 -1e9 代替 -inf：普通的 float32 分数得到一样的权重……
# -1e9 instead of -inf: with ordinary float32 scores the weights come out the same...
with_1e9 = torch.softmax(scores.masked_fill(~tril, -1e9), dim=-1)
print("-1e9 和 -inf 的权重相同 same weights with -1e9 and -inf:", torch.equal(with_1e9, weights))

# ……可是整行都被遮住时，-inf 给出 NaN（错误看得见），-1e9 却悄悄平均了未来
# ...but when a whole row is masked, -inf gives NaN (the mistake shows) while -1e9 quietly averages the future
everything = torch.ones(T, dtype=torch.bool)
print("整行遮住 whole row masked, -inf:", torch.softmax(scores[0].masked_fill(everything, float("-inf")), dim=-1).tolist())
print("整行遮住 whole row masked, -1e9:", [round(x, 3) for x in torch.softmax(scores[0].masked_fill(everything, -1e9), dim=-1).tolist()])
# Hugging Face 等库有意填 finfo.min（最负的有限数）：被填充整行遮住的位置得到均匀的权重，不是 NaN
# libraries such as Hugging Face fill finfo.min (the most negative finite number) on purpose:
# a position whose whole row is masked by padding gets uniform weights, not NaN
lowest = torch.finfo(scores.dtype).min
print("整行遮住 whole row masked, finfo.min:", [round(x, 3) for x in torch.softmax(scores[0].masked_fill(everything, lowest), dim=-1).tolist()])

# float16 最大只能表示 65504，放不下 -1e9 / float16 cannot hold -1e9: its largest number is 65504
try:
    scores.half().masked_fill(~tril, -1e9)
    print("float16 与 -1e9 with -1e9: 没有出错 no error")
except RuntimeError as e:
    print("float16 与 -1e9 with -1e9: RuntimeError:", e)
half_weights = torch.softmax(scores.half().masked_fill(~tril, float("-inf")).float(), dim=-1)
print("float16 与 -inf with -inf, 位置 position 1:", [round(x, 3) for x in half_weights[1].tolist()])
