"""ex2 实验：查询和键的点积就是分数；方向和长度都算数。
ex2 experiment: the dot products of queries and keys are the scores; both
direction and length count.

只用 torch，不用你的代码：ex2 没做完也能运行。改一个查询或键，再运行一次：
Plain torch, none of your code: it runs before ex2 is solved. Change a query
or a key and run it again:

    tox exec -e grade -- python experiments/ex2_scores_experiment.py
"""

import torch

# 课文里的两个查询和两个键，head_size = 2 / the page's two queries and two keys, head_size = 2
q = torch.tensor([[1.0, 0.0], [1.0, 1.0]])  # (T, hs)：q0, q1
k = torch.tensor([[3.0, 1.0], [0.0, 2.0]])  # (T, hs)：k0, k1

# 一次乘法算出所有查询对所有键的点积 / every query against every key in one product
scores = q @ k.T  # (T, hs) @ (hs, T) -> (T, T)：第 i 行第 j 列 = q_i · k_j / row i, column j = q_i . k_j
print("分数 scores = q @ k.T", scores.tolist())

# 点积 = 长度 × 长度 × 夹角余弦 / dot product = length × length × cosine of the angle
q_len = q.norm(dim=-1)  # (T,)
k_len = k.norm(dim=-1)  # (T,)
cos = scores / (q_len[:, None] * k_len[None, :])  # (T, T)：只剩方向 / direction alone
print("查询长度 |q|        ", [round(x, 3) for x in q_len.tolist()])
print("键长度 |k|          ", [round(x, 3) for x in k_len.tolist()])
print("余弦 cos θ          ", [[round(x, 3) for x in row] for row in cos.tolist()])
print("|q||k|cos θ         ", [[round(x, 3) for x in row] for row in (cos * q_len[:, None] * k_len[None, :]).tolist()])

# q0 的方向更接近 k0，可 q1 更长，所以 q1·k0 更大 / q0 points closer to k0, but q1 is longer, so q1 . k0 is larger
print("k0 的分数 scores for k0: q0·k0 =", scores[0, 0].item(), " q1·k0 =", scores[1, 0].item())

# 查询变长一倍，它那一行的分数也大一倍 / a query twice as long doubles its row of scores
longer = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
print("q0 加倍 q0 doubled  ", (longer @ k.T).tolist())

# 表不对称：q_i·k_j 和 q_j·k_i 是两回事 / the table is not symmetric: q_i . k_j is not q_j . k_i
print("转置 scores.T       ", scores.T.tolist())
print("k @ q.T             ", (k @ q.T).tolist())
