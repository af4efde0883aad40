"""ex2: queries and keys as arrows, and the table of their dot products."""
import matplotlib.pyplot as plt
import torch

from ex2_scores import attention_scores

Q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # (B=1, T=2, hs=2)
K = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
BLUE, ORANGE = "#2c6fbb", "#e07b39"


def draw():
    scores = attention_scores(Q, K)[0]  # (T, T)
    fig, (plane, table) = plt.subplots(1, 2, figsize=(9, 3.8))
    for vecs, color, name in ((Q[0], BLUE, "q"), (K[0], ORANGE, "k")):
        for i, (x, y) in enumerate(vecs.tolist()):
            plane.annotate("", (x, y), (0, 0), arrowprops={"arrowstyle": "->", "color": color, "lw": 2})
            plane.annotate(f"{name}{i} = [{x:g}, {y:g}]", (x, y), textcoords="offset points", xytext=(4, 4), color=color, fontsize=9)
    plane.set_xlim(-0.3, 4.6)
    plane.set_ylim(-0.3, 2.5)
    plane.set_aspect("equal")
    plane.grid(alpha=0.3)
    plane.set_title("查询（蓝）与键（橙）/ queries (blue) and keys (orange)", fontsize=10)

    table.imshow(scores, cmap="Oranges", vmin=scores.min() - 1, vmax=scores.max() + 1)
    for i in range(scores.shape[0]):
        for j in range(scores.shape[1]):
            table.text(j, i, f"q{i}·k{j} = {scores[i, j]:g}", ha="center", va="center", fontsize=10)
    table.set_xticks(range(2), ["键 key k0", "键 key k1"])
    table.set_yticks(range(2), ["查询 query q0", "查询 query q1"])
    table.set_title("attention_scores(q, k)：行 = 查询，列 = 键\nrows = queries, columns = keys", fontsize=10)
    fig.tight_layout()
    return fig
