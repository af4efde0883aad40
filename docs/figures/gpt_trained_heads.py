"""ex6: every head of one block of the trained GPT (docs/figures/gpt_trained.py) reading the same sentence."""
import matplotlib.pyplot as plt
import torch

from figures import gpt_trained
from figures.gpt_trained_head import LAYER, heatmap


def weights() -> torch.Tensor:
    return gpt_trained.attention(LAYER)  # (n_head, T, T)


def most_diverse_row(w: torch.Tensor) -> tuple[str, list[str]]:
    """The character whose row the heads most disagree on (most distinct favourites, the later the
    better on a tie), and the character each head attends to most there."""
    s = gpt_trained.SENTENCE
    favourites = w.argmax(dim=-1)  # (n_head, T)
    t = max(range(len(s)), key=lambda t: (len(set(favourites[:, t].tolist())), t))
    return s[t], [s[i] for i in favourites[:, t].tolist()]


def draw():
    w = weights()
    n = w.shape[0]
    fig, axes = plt.subplots(1, n, figsize=(3.0 * n, 3.4))
    for k, ax in enumerate(axes):
        heatmap(ax, w[k], f"头 / head {k + 1}", fontsize=7)
    fig.suptitle(f"第 {LAYER + 1} 块的 {n} 个头，训练后 / the {n} heads of block {LAYER + 1}, trained", fontsize=10)
    fig.tight_layout()
    return fig
