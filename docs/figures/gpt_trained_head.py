"""ex5: one head of the trained GPT (docs/figures/gpt_trained.py) reading a sentence of the course."""
import matplotlib.pyplot as plt
import torch

from figures import gpt_trained

LAYER, HEAD = 2, 3  # the third block's fourth head


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


def heatmap(ax, w: torch.Tensor, title: str, fontsize: int = 10):
    s = gpt_trained.SENTENCE
    image = ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
    ax.set_xticks(range(len(s)), list(s), fontsize=fontsize)
    ax.set_yticks(range(len(s)), list(s), fontsize=fontsize)
    ax.set_title(title, fontsize=10)
    return image


def draw():
    fig, ax = plt.subplots(figsize=(5.2, 4.8))
    image = heatmap(ax, weights(), f"第 {LAYER + 1} 块第 {HEAD + 1} 个头，训练后 / block {LAYER + 1}, head {HEAD + 1}, trained")
    ax.set_xlabel("被关注的字 / attended to")
    ax.set_ylabel("正在读的字 / reading")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="权重 / weight")
    fig.tight_layout()
    return fig
