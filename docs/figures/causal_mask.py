"""ex4: scores, the same scores after the causal mask, and the weights after softmax.

Wide: the three panels side by side. Narrow, for phones: one under another,
4 inches wide with no text under 10 points (11 CSS px or more on a 390 px
phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
from ex4_masking import causal_mask, causal_weights

T, SEED = 5, 4


def scores() -> torch.Tensor:
    g = torch.Generator().manual_seed(SEED)
    return torch.randn(T, T, generator=g).mul(10).round().div(10)  # one decimal: easy to read


def _panel(ax, matrix, title, fmt, cmap, fontsize):
    finite = torch.where(torch.isinf(matrix), torch.nan, matrix)
    image = ax.imshow(finite, cmap=cmap)

    def ink(v):  # white on the dark cells
        r, g, b, _ = image.cmap(image.norm(v))
        return "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45 else "black"

    for i in range(T):
        for j in range(T):
            v = matrix[i, j].item()
            if v == float("-inf"):
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, color="#dddddd"))
                ax.text(j, i, "−∞", ha="center", va="center", fontsize=10, color="#555555")
            else:
                ax.text(j, i, fmt(v), ha="center", va="center", fontsize=fontsize, color=ink(v))
    ax.set_xticks(range(T))
    ax.set_yticks(range(T))
    ax.set_xlabel("键的位置 j / key position j")
    ax.set_title(title, fontsize=10)


def alt() -> dict:
    s = scores()
    w = causal_weights(s)
    rows = lambda sep: sep.join(" ".join(f"{v:.2f}" if v else "0" for v in row) for row in w.tolist())  # noqa: E731 - a one-line helper
    return {
        "zh": f"三个 {T}×{T} 的表，格子里写着数，位置从 0 数起。第一个是随机的分数；第二个 causal_mask(scores) 是同样的分数，"
        f"只是对角线以上都换成了 −∞（灰格子）；第三个 causal_weights(scores) 是 softmax 之后的权重：对角线以上都是 0，"
        f"第 0 行只有一个 1，每行之和为 1。权重一行一行是：{rows('；')}。",
        "en": f"Three {T}×{T} tables with numbers in their cells, positions counted from 0. The first holds random scores; "
        "the second, causal_mask(scores), the same scores with everything above the diagonal set to −∞ (grey cells); "
        "the third, causal_weights(scores), the weights after softmax: 0 above the diagonal, a single 1 in row 0, "
        f"each row adding up to 1. The weights row by row: {rows('; ')}.",
    }


def draw(narrow: bool = False):
    s = scores()
    small = 10 if narrow else 8  # the numbers in the cells
    if narrow:
        fig, axes = plt.subplots(3, 1, figsize=(4.0, 11.4))
    else:
        fig, axes = plt.subplots(1, 3, figsize=(11, 3.9))
    _panel(axes[0], s, "分数 / scores", lambda v: f"{v:.1f}", "RdBu_r", small)
    _panel(axes[1], causal_mask(s), "causal_mask(scores)", lambda v: f"{v:.1f}", "RdBu_r", small)
    _panel(axes[2], causal_weights(s), "causal_weights(scores)", lambda v: f"{v:.2f}" if v else "0", "Greens", small)
    for ax in axes if narrow else axes[:1]:
        ax.set_ylabel("查询的位置 i / query position i")
    fig.tight_layout()
    return fig
