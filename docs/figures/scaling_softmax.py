"""ex3: why scores are scaled by head_size ** -0.5.

Wide: the two panels side by side. Narrow, for phones: one under the other,
4 inches wide with no text under 9.5 points (11 CSS px or more on a 390 px
phone, docs/_ext/figure_gen.py).
"""

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


def alt() -> dict:
    d = data()
    return {
        "zh": f"两幅图。直方图：{PAIRS} 对随机查询和键（head_size = {HEAD_SIZE}）的点积，缩放前（红）散得很开，"
        f"方差 {d['pairs'].var():.1f}；除以 √{HEAD_SIZE} 以后（蓝）方差 {d['scaled_pairs'].var():.2f}。"
        f"柱状图：一个查询对 {KEYS} 个键的 softmax 权重，不缩放时最大的权重是 {d['weights'].max():.3f}，"
        f"缩放后是 {d['scaled_weights'].max():.3f}。",
        "en": f"Two plots. Histogram: the dot products of {PAIRS} random query-key pairs (head_size = {HEAD_SIZE}); "
        f"unscaled (red) they spread wide, variance {d['pairs'].var():.1f}; divided by √{HEAD_SIZE} (blue) the variance "
        f"is {d['scaled_pairs'].var():.2f}. Bars: one query's softmax weights over {KEYS} keys; the largest weight is "
        f"{d['weights'].max():.3f} unscaled and {d['scaled_weights'].max():.3f} scaled.",
    }


def draw(narrow: bool = False):
    d = data()
    small = 9.5 if narrow else 8  # the legends
    sep = "\n" if narrow else " "
    if narrow:
        fig, (hist, bars) = plt.subplots(2, 1, figsize=(4.0, 7.4))
    else:
        fig, (hist, bars) = plt.subplots(1, 2, figsize=(10, 3.8))
    bins = torch.linspace(-30, 30, 61)
    hist.hist(d["pairs"], bins=bins, color=RED, alpha=0.6, label=f"q·k：方差{sep}variance {d['pairs'].var():.1f}")
    hist.hist(d["scaled_pairs"], bins=bins, color=BLUE, alpha=0.6, label=f"q·k / √{HEAD_SIZE}：方差{sep}variance {d['scaled_pairs'].var():.2f}")
    hist.set_title(f"{PAIRS} 对随机查询和键，head_size = {HEAD_SIZE}\n{PAIRS} random query-key pairs", fontsize=10)
    hist.set_xlabel("分数 / score")
    hist.legend(fontsize=small)

    width = 0.4
    xs = torch.arange(KEYS)
    bars.bar(xs - width / 2, d["weights"], width, color=RED, label=f"不缩放 unscaled：最大权重{sep}max weight {d['weights'].max():.3f}")
    bars.bar(xs + width / 2, d["scaled_weights"], width, color=BLUE, label=f"缩放后 scaled：最大权重{sep}max weight {d['scaled_weights'].max():.3f}")
    bars.set_xticks(range(KEYS))
    bars.set_xlabel("键的位置 / key position")
    bars.set_ylabel("softmax 权重 / weight")
    bars.set_ylim(0, 1.35 if narrow else 1.15)
    bars.set_title(f"一个查询对 {KEYS} 个键的 softmax\none query against {KEYS} keys", fontsize=10)
    bars.legend(fontsize=small, loc="upper left")
    fig.tight_layout()
    return fig
