"""ex4: scores, the same scores after the causal mask, and the weights after softmax."""
import matplotlib.pyplot as plt
import torch

from ex4_masking import causal_mask, causal_weights

T, SEED = 5, 4


def scores() -> torch.Tensor:
    g = torch.Generator().manual_seed(SEED)
    return torch.randn(T, T, generator=g).mul(10).round().div(10)  # one decimal: easy to read


def _panel(ax, matrix, title, fmt, cmap):
    finite = torch.where(torch.isinf(matrix), torch.nan, matrix)
    ax.imshow(finite, cmap=cmap)
    for i in range(T):
        for j in range(T):
            v = matrix[i, j].item()
            if v == float("-inf"):
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, color="#dddddd"))
                ax.text(j, i, "−∞", ha="center", va="center", fontsize=10, color="#555555")
            else:
                ax.text(j, i, fmt(v), ha="center", va="center", fontsize=8)
    ax.set_xticks(range(T))
    ax.set_yticks(range(T))
    ax.set_xlabel("键的位置 j / key position j")
    ax.set_title(title, fontsize=10)


def draw():
    s = scores()
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.9))
    _panel(axes[0], s, "分数 / scores", lambda v: f"{v:.1f}", "RdBu_r")
    _panel(axes[1], causal_mask(s), "causal_mask(scores)", lambda v: f"{v:.1f}", "RdBu_r")
    _panel(axes[2], causal_weights(s), "causal_weights(scores)", lambda v: f"{v:.2f}" if v else "0", "Greens")
    axes[0].set_ylabel("查询的位置 i / query position i")
    fig.tight_layout()
    return fig
