"""ex5: one head of the trained GPT (docs/figures/gpt_trained.py) reading a sentence of the course.

One picture for every screen: 4.2 inches wide with no text under 10 points,
its smallest text is 11 CSS px or more on a 390 px phone (docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch

from figures import gpt_trained

LAYER, HEAD = 2, 3  # the third block's fourth head
FONT = 10  # points: the smallest text of the heat maps here and in gpt_trained_heads


def weights() -> torch.Tensor:
    return gpt_trained.attention(LAYER)[HEAD]


def strongest(w: torch.Tensor, n: int = 2) -> list[tuple[str, str, float]]:
    """(reading, attended to, weight) of the ``n`` rows after the first whose largest weight is largest."""
    s = gpt_trained.SENTENCE
    rows = sorted(range(1, len(s)), key=lambda t: -w[t].max().item())[:n]
    return [(s[t], s[w[t].argmax().item()], w[t].max().item()) for t in sorted(rows)]


def focused(w: torch.Tensor, share: float = 0.5) -> int:
    """How many rows after the first give more than ``share`` of their weight to one character."""
    return int((w[1:].max(dim=-1).values > share).sum())


def heatmap(ax, w: torch.Tensor, title: str, fontsize: float = FONT):
    s = gpt_trained.SENTENCE
    image = ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
    ax.set_xticks(range(len(s)), list(s), fontsize=fontsize)
    ax.set_yticks(range(len(s)), list(s), fontsize=fontsize)
    ax.tick_params(length=2, pad=2)
    ax.set_title(title, fontsize=FONT)
    return image


def colorbar(fig, image, **where):
    bar = fig.colorbar(image, **where)
    bar.set_label("权重 / weight", fontsize=FONT)
    bar.ax.tick_params(labelsize=FONT)
    return bar


def how_to_read() -> dict:
    """How a heat map of these figures is read, for the alt texts."""
    s = gpt_trained.SENTENCE
    return {
        "zh": f"每一行是正在读的字，每一列是被关注的字，都按句子的顺序，共 {len(s)} 个字；格子颜色越深，权重越大（0 到 1）；对角线以上是未来，权重都是 0。",
        "en": f"each row is the character being read and each column a character attended to, in the sentence's "
        f"order ({len(s)} characters); the darker a cell, the larger the weight (0 to 1); above the diagonal "
        "is the future, where every weight is 0.",
    }


def alt() -> dict:
    s = gpt_trained.SENTENCE
    w = weights()
    read = how_to_read()
    top = strongest(w)
    return {
        "zh": f"热图：训练好的小 GPT 第 {LAYER + 1} 块第 {HEAD + 1} 个头读“{s}”时的注意力权重。{read['zh']}"
        + "最集中的两行："
        + "；".join(f"读“{a}”时 {v:.2f} 的权重给了“{b}”" for a, b, v in top)
        + f"。除第一行外，有 {focused(w)} 行把一半以上的权重给了同一个字。",
        "en": f"Heat map: the attention weights of block {LAYER + 1}, head {HEAD + 1} of the trained small GPT "
        f"reading {s}. {read['en'][0].upper()}{read['en'][1:]} The most focused rows: "
        + "; ".join(f"reading {a}, it gives {v:.2f} of its weight to {b}" for a, b, v in top)
        + f". After the first row, {focused(w)} rows give more than half their weight to one character.",
    }


def draw():
    fig, ax = plt.subplots(figsize=(4.2, 4.4))
    image = heatmap(ax, weights(), f"第 {LAYER + 1} 块第 {HEAD + 1} 个头，训练后\nblock {LAYER + 1}, head {HEAD + 1}, trained")
    ax.set_xlabel("被关注的字 / attended to", fontsize=FONT)
    ax.set_ylabel("正在读的字 / reading", fontsize=FONT)
    colorbar(fig, image, ax=ax, fraction=0.046, pad=0.03)
    fig.tight_layout()
    return fig
