"""ex2: queries and keys as arrows, and the table of their dot products.

Wide: the two panels side by side. Narrow, for phones: one under the other,
4 inches wide with no text under 9.5 points (11 CSS px or more on a 390 px
phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
from ex2_scores import attention_scores

Q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # (B=1, T=2, hs=2)
K = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
BLUE, ORANGE = "#2c6fbb", "#e07b39"


def _vec(t) -> str:
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def alt() -> dict:
    scores = attention_scores(Q, K)[0]
    T = scores.shape[0]
    qs = [f"q{i} = {_vec(q)}" for i, q in enumerate(Q[0])]
    ks = [f"k{j} = {_vec(k)}" for j, k in enumerate(K[0])]
    cells = [f"q{i}·k{j} = {scores[i, j]:g}" for i in range(T) for j in range(T)]
    return {
        "zh": f"两幅图。平面上画着两个查询 {'、'.join(qs)}（蓝色箭头）和两个键 {'、'.join(ks)}（橙色箭头）。{T}×{T} 的表 attention_scores(q, k)，行是查询，列是键：{'，'.join(cells)}。",
        "en": f"Two pictures. A plane with two queries, {', '.join(qs)} (blue arrows), and two keys, {', '.join(ks)} "
        f"(orange arrows). A {T}×{T} table, attention_scores(q, k), rows queries and columns keys: {', '.join(cells)}.",
    }


def draw(narrow: bool = False):
    scores = attention_scores(Q, K)[0]  # (T, T)
    small = 10 if narrow else 9
    if narrow:
        fig, (plane, table) = plt.subplots(2, 1, figsize=(4.0, 6.4), gridspec_kw={"height_ratios": [1, 1.15]})
    else:
        fig, (plane, table) = plt.subplots(1, 2, figsize=(9, 3.8))
    for vecs, color, name in ((Q[0], BLUE, "q"), (K[0], ORANGE, "k")):
        for i, (x, y) in enumerate(vecs.tolist()):
            plane.annotate("", (x, y), (0, 0), arrowprops={"arrowstyle": "->", "color": color, "lw": 2})
            plane.annotate(f"{name}{i} = [{x:g}, {y:g}]", (x, y), textcoords="offset points", xytext=(4, 4), color=color, fontsize=small)
    plane.set_xlim(-0.3, 4.6)
    plane.set_ylim(-0.3, 2.5)
    plane.set_aspect("equal")
    plane.grid(alpha=0.3)
    title = "查询（蓝）与键（橙）/ queries (blue) and keys (orange)"
    plane.set_title(title.replace("/ ", "\n") if narrow else title, fontsize=10)

    table.imshow(scores, cmap="Oranges", vmin=scores.min() - 1, vmax=scores.max() + 1)
    for i in range(scores.shape[0]):
        for j in range(scores.shape[1]):
            table.text(j, i, f"q{i}·k{j} = {scores[i, j]:g}", ha="center", va="center", fontsize=10)
    sep = "\n" if narrow else " "
    table.set_xticks(range(2), [f"键{sep}key k0", f"键{sep}key k1"])
    table.set_yticks(range(2), [f"查询{sep}query q0", f"查询{sep}query q1"])
    table.set_title("attention_scores(q, k)：行 = 查询，列 = 键\nrows = queries, columns = keys", fontsize=10)
    fig.tight_layout()
    return fig
