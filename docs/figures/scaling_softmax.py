"""ex3: why scores are scaled by head_size ** -0.5."""
import matplotlib.pyplot as plt
import torch

from ex2_scores import attention_scores
from ex3_scaling import scale_scores

# The draws of experiments/ex3_scaling_experiment.py, in its order: a batch of
# PAIRS queries and keys for each of SIZES; the last one (HEAD_SIZE) is shown,
# with its first query against its first KEYS keys. Same seed, same numbers.
SIZES, PAIRS, KEYS, SEED = (4, 16, 64), 2000, 8, 0
HEAD_SIZE = SIZES[-1]
RED, BLUE = "#c0392b", "#2c6fbb"


def data() -> dict:
    """The experiment's random unit-variance queries and keys; their raw and scaled scores."""
    g = torch.Generator().manual_seed(SEED)
    for head_size in SIZES:
        q = torch.randn(1, PAIRS, head_size, generator=g)  # (B, T, hs)
        k = torch.randn(1, PAIRS, head_size, generator=g)
    pairs = (q * k).sum(-1).flatten()  # one dot product per (query, key) pair
    row = attention_scores(q[:, :1], k[:, :KEYS])[0, 0]  # query 0 against KEYS keys
    return {
        "pairs": pairs,
        "scaled_pairs": scale_scores(pairs, HEAD_SIZE),
        "row": row,
        "scaled_row": scale_scores(row, HEAD_SIZE),
        "weights": torch.softmax(row, dim=-1),
        "scaled_weights": torch.softmax(scale_scores(row, HEAD_SIZE), dim=-1),
    }


def draw():
    d = data()
    fig, (hist, bars) = plt.subplots(1, 2, figsize=(10, 3.8))
    bins = torch.linspace(-30, 30, 61)
    hist.hist(d["pairs"], bins=bins, color=RED, alpha=0.6, label=f"q·k：方差 variance {d['pairs'].var():.1f}")
    hist.hist(d["scaled_pairs"], bins=bins, color=BLUE, alpha=0.6, label=f"q·k / √{HEAD_SIZE}：方差 variance {d['scaled_pairs'].var():.2f}")
    hist.set_title(f"{PAIRS} 对随机查询和键，head_size = {HEAD_SIZE}\n{PAIRS} random query-key pairs", fontsize=10)
    hist.set_xlabel("分数 / score")
    hist.legend(fontsize=8)

    width = 0.4
    xs = torch.arange(KEYS)
    bars.bar(xs - width / 2, d["weights"], width, color=RED, label=f"不缩放 unscaled：最大权重 max weight {d['weights'].max():.3f}")
    bars.bar(xs + width / 2, d["scaled_weights"], width, color=BLUE, label=f"缩放后 scaled：最大权重 max weight {d['scaled_weights'].max():.3f}")
    bars.set_xticks(range(KEYS))
    bars.set_xlabel("键的位置 / key position")
    bars.set_ylabel("softmax 权重 / weight")
    bars.set_ylim(0, 1.15)
    bars.set_title(f"一个查询对 {KEYS} 个键的 softmax\none query against {KEYS} keys", fontsize=10)
    bars.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig
