"""ex1 实验：一个下三角矩阵、一次矩阵乘法，就把每个位置的前文平均好了。
ex1 experiment: one lower-triangular matrix and one matrix product average
every position's past.

只用 torch，不用你的代码：ex1 没做完也能运行。改 T 或 x，再运行一次：
Plain torch, none of your code: it runs before ex1 is solved. Change T or x
and run it again:

    tox exec -e grade -- python experiments/ex1_averaging_experiment.py
"""

import torch

T = 4  # “今天天气”四个字 / the four characters 今天天气

tril = torch.tril(torch.ones(T, T))  # (T, T)：第 i 行的第 0..i 列是 1 / row i has ones in columns 0..i
row_sums = tril.sum(dim=1, keepdim=True)  # (T, 1)：第 i 行有 i + 1 个 1 / row i holds i + 1 ones
wei = tril / row_sums  # 每行除以自己的和，和就成了 1 / each row divided by its own sum now adds up to 1

print("torch.tril(torch.ones(4, 4))")
for row in tril.tolist():
    print("   ", row)
print("每行的和 row sums  ", row_sums.flatten().tolist())
print("平均矩阵 averaging matrix = tril / row sums")
for row in wei.tolist():
    print("   ", [round(w, 3) for w in row])

# 课文里的例子：三个位置的值是 2、4、9，C = 1 / the page's example: values 2, 4 and 9 at three positions, C = 1
x = torch.tensor([[[2.0], [4.0], [9.0]]])  # (B, T, C) = (1, 3, 1)
w3 = torch.tril(torch.ones(3, 3))
w3 = w3 / w3.sum(dim=1, keepdim=True)  # (3, 3)
averaged = w3 @ x  # (3, 3) @ (1, 3, 1) -> (1, 3, 1)：一次乘法算出所有位置 / all positions in one product
# 同样的事用循环做一遍，答案一样，只是慢 / the same with a loop: same answer, only slower
looped = torch.stack([x[:, : t + 1].mean(dim=1) for t in range(3)], dim=1)  # (1, 3, 1)

print("x                 ", x.flatten().tolist())
print("矩阵乘法 wei @ x   ", averaged.flatten().tolist())
print("循环 loop          ", looped.flatten().tolist())

# 把前文倒过来：最后一个位置的平均不变，平均看不出先后 / reverse the past: the last average is the same, so averaging cannot see order
reversed_x = x.flip(dims=[1])
print("倒序 reversed x    ", reversed_x.flatten().tolist())
print("倒序的平均 averaged", (w3 @ reversed_x).flatten().tolist())
