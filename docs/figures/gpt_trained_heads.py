"""ex6: every head of one block of the trained GPT (docs/figures/gpt_trained.py) reading the same sentence.

Wide: the heads two by two, one colour bar for all (the same scale, 0 to 1).
Narrow, for phones: the heads one under another, each with its colour bar
(one at the bottom would be a long way down); 4.2 inches wide like gpt_trained_head, so that its text of 10 points
is 11 CSS px or more on a 390 px phone (docs/_ext/figure_gen.py).
"""

import math

import matplotlib.pyplot as plt
import torch

from figures import gpt_trained
from figures.gpt_trained_head import FONT, LAYER, colorbar, heatmap, how_to_read


def weights() -> torch.Tensor:
    return gpt_trained.attention(LAYER)  # (n_head, T, T)


def most_diverse_row(w: torch.Tensor) -> tuple[str, list[str]]:
    """The character whose row the heads most disagree on (most distinct favourites, the later the
    better on a tie), and the character each head attends to most there."""
    s = gpt_trained.SENTENCE
    favourites = w.argmax(dim=-1)  # (n_head, T)
    t = max(range(len(s)), key=lambda t: (len(set(favourites[:, t].tolist())), t))
    return s[t], [s[i] for i in favourites[:, t].tolist()]


def alt() -> dict:
    s = gpt_trained.SENTENCE
    w = weights()
    n = w.shape[0]
    char, favourites = most_diverse_row(w)
    read = how_to_read()
    return {
        "zh": f"{n} 张热图，一个头一张：训练好的小 GPT 第 {LAYER + 1} 块的 {n} 个头读同一句话“{s}”时的注意力权重。"
        f"{read['zh']}各个头看的地方不一样：读“{char}”时，头 1 到头 {n} 最关注的字依次是" + "、".join(f"“{c}”" for c in favourites) + "。",
        "en": f"{n} heat maps, one per head: the attention weights of the {n} heads of block {LAYER + 1} of the trained "
        f"small GPT reading the same sentence, {s}. In each, {read['en']} The heads look at different places: reading "
        f"{char}, heads 1 to {n} attend most to " + ", ".join(favourites) + ".",
    }


def draw(narrow: bool = False):
    w = weights()
    n = w.shape[0]
    title = f"第 {LAYER + 1} 块的 {n} 个头，训练后\nthe {n} heads of block {LAYER + 1}, trained"
    if narrow:
        fig, axes = plt.subplots(n, 1, figsize=(4.2, 3.5 * n + 0.5), layout="constrained")
    else:
        cols = math.ceil(math.sqrt(n))
        fig, axes = plt.subplots(math.ceil(n / cols), cols, figsize=(4.0 * cols + 0.8, 4.0 * math.ceil(n / cols) + 0.6), layout="constrained")
    axes = list(axes.flat)
    for k, ax in enumerate(axes[:n]):
        image = heatmap(ax, w[k], f"头 / head {k + 1}")
        if narrow:
            colorbar(fig, image, ax=ax, fraction=0.046, pad=0.03)
    for ax in axes[n:]:
        ax.set_visible(False)
    if not narrow:
        colorbar(fig, image, ax=axes, fraction=0.03, pad=0.02, aspect=40)
    fig.suptitle(title, fontsize=FONT + 1)
    return fig
