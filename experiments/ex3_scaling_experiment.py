"""ex3 实验：点积的方差随 head_size 增长，乘以 head_size ** -0.5 把它拉回 1 左右。
ex3 experiment: the variance of a dot product grows with head_size; multiplying
by head_size ** -0.5 brings it back to about 1.

只用 torch，不用你的代码：ex3 没做完也能运行。改 head_size 或 PAIRS，再运行一次：
Plain torch, none of your code: it runs before ex3 is solved. Change a
head_size or PAIRS and run it again:

    tox exec -e grade -- python experiments/ex3_scaling_experiment.py
"""

import torch

torch.manual_seed(0)  # 每次运行都是同一批随机数 / the same random numbers on every run
PAIRS = 2000  # 随机的查询-键对数 / how many random query-key pairs
KEYS = 8  # 最后一个查询要比较的键数 / how many keys the last test's query is compared with

# softmax 先取指数，分数拉开，权重就变尖 / softmax exponentiates, so spreading the scores sharpens the weights
base = torch.tensor([2.0, 1.0, 0.0])
print("softmax [2, 1, 0]    ", [round(w, 4) for w in torch.softmax(base, dim=-1).tolist()])
print("softmax [16, 8, 0]   ", [round(w, 4) for w in torch.softmax(8 * base, dim=-1).tolist()])

# 每个元素均值 0、方差 1：点积是 head_size 项之和，方差约为 head_size
# entries with mean 0 and variance 1: a dot product adds head_size terms, so its variance is about head_size
for head_size in (4, 16, 64):
    q = torch.randn(PAIRS, head_size)  # (PAIRS, hs)
    k = torch.randn(PAIRS, head_size)  # (PAIRS, hs)
    dots = (q * k).sum(dim=-1)  # (PAIRS,)：每对一个点积 / one dot product per pair
    scaled = dots * head_size**-0.5  # 除以 √head_size / divided by √head_size
    too_small = dots / head_size  # 错误的缩放：除以 head_size 本身 / the wrong scale: divided by head_size itself
    print(
        f"head_size {head_size:2d}: 方差 var q·k {dots.var().item():6.2f}",
        f"| 缩放后 scaled {scaled.var().item():.2f}",
        f"| 除以 head_size divided by head_size {too_small.var().item():.3f}",
    )

# 接着用最后一批（head_size = 64）：第一个查询对前 KEYS 个键做 softmax
# on with the last draw (head_size = 64): the first query against the first KEYS keys
print(f"一个查询对 {KEYS} 个键 / one query against {KEYS} keys, head_size = {head_size}")
scores = q[:1] @ k[:KEYS].T  # (1, hs) @ (hs, KEYS) -> (1, KEYS)
weights = torch.softmax(scores, dim=-1)
scaled_weights = torch.softmax(scores * head_size**-0.5, dim=-1)
over_weights = torch.softmax(scores / head_size, dim=-1)  # 除以 head_size 本身 / divided by head_size itself
print("分数 scores                  ", [round(s, 1) for s in scores[0].tolist()])
print("权重 weights 不缩放 unscaled ", [round(w, 3) for w in weights[0].tolist()])
print("权重 weights 缩放后 scaled   ", [round(w, 3) for w in scaled_weights[0].tolist()])
print("权重 weights 除以 head_size  ", [round(w, 3) for w in over_weights[0].tolist()])
# 缩放不改变谁的分数最高，只改变权重有多集中 / scaling keeps the winner, it only changes how concentrated the weights are
print(
    "最大权重 largest weight: 不缩放 unscaled",
    round(weights.max().item(), 3),
    "| 缩放后 scaled",
    round(scaled_weights.max().item(), 3),
    "| 除以 head_size divided by head_size",
    round(over_weights.max().item(), 3),
    "| 平均分配 even share",
    round(1 / KEYS, 3),
)
print("最高的键 top key: 不缩放 unscaled", weights.argmax().item(), "| 缩放后 scaled", scaled_weights.argmax().item())
