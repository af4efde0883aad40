"""ex0 实验：分数变成权重，权重把各位置的信息加起来。
ex0 experiment: scores become weights, and the weights add up the values.

只用 torch，不用你的代码：ex0 没做完也能运行。改一个分数，再运行一次。
Plain torch, none of your code: it runs before ex0 is solved. Change a score
and run it again:

    tox exec -e grade -- python experiments/ex0_weighted_sum_experiment.py
"""

import torch

# 每个位置一个分数；试试 [0, 0, 0] 或 [10, 1, 0] / one score per position: try [0, 0, 0] or [10, 1, 0]
scores = torch.tensor([2.0, 1.0, 0.0])
# 春、江、花各带两项信息 / what 春, 江 and 花 carry, two numbers each: (T, C) = (3, 2)
values = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])

shifted = scores - scores.max()  # 权重不变，exp 不会溢出 / same weights, and exp() cannot overflow
exps = shifted.exp()
weights = exps / exps.sum()  # softmax：非负，和为 1 / softmax by hand: never negative, adds up to 1
summary = weights @ values  # (3,) @ (3, 2) -> (2,)：每个值乘它的权重再相加 / each value times its weight, added up

print("分数 scores      ", scores.tolist())
print("指数 exp         ", [round(x, 3) for x in exps.tolist()])
print("权重 weights     ", [round(x, 3) for x in weights.tolist()], "和 sum", round(weights.sum().item(), 3))
print("torch.softmax    ", [round(x, 3) for x in torch.softmax(scores, dim=-1).tolist()])
print("汇总 summary     ", [round(x, 3) for x in summary.tolist()])
