"""ex5: the attention weights of one (untrained) head over a line of Chinese.

One picture for every screen: no text under 10 points, 11 CSS px or more on a
390 px phone (docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from ex2_scores import attention_scores
from ex3_scaling import scale_scores
from ex4_masking import causal_weights
from ex5_head import Head

LINE, N_EMBD, HEAD_SIZE, SEED = "春江花月夜", 16, 8, 1


def weights() -> torch.Tensor:
    """The head's (T, T) attention weights, checked against the head's own output."""
    torch.manual_seed(SEED)
    embedding = nn.Embedding(len(LINE), N_EMBD)
    head = Head(N_EMBD, HEAD_SIZE, block_size=len(LINE)).eval()
    x = embedding(torch.arange(len(LINE)))[None]  # (B=1, T, n_embd)
    with torch.no_grad():
        q, k, v = head.query(x), head.key(x), head.value(x)  # (1, T, hs) each
        wei = causal_weights(scale_scores(attention_scores(q, k), HEAD_SIZE))  # (1, T, T)
        if not torch.allclose(wei @ v, head(x), atol=1e-6):
            raise AssertionError("these weights do not give the head's output")
    return wei[0]


def alt() -> dict:
    w = weights()
    T = len(LINE)
    last = w[-1].tolist()
    top = max(range(T), key=lambda j: last[j])
    stands_out = last[top] > 0.5
    return {
        "zh": f"{T}×{T} 的表：一个随机初始化、还没训练的头 Head({N_EMBD}, {HEAD_SIZE}) 读“{LINE}”的注意力权重。"
        "每一行是正在读的字，每一列是被关注的字，格子里写着权重；对角线以上都是 0，每行之和为 1。"
        f"第一行“{LINE[0]}”只能看自己，权重是 1；最后一行“{LINE[-1]}”的权重是 "
        + "、".join(f"{c} {v:.2f}" for c, v in zip(LINE, last))
        + (f"，大半给了“{LINE[top]}”。" if stands_out else "，没有哪个字占到一半。"),
        "en": f"A {T}×{T} table: the attention weights of an untrained, randomly initialised head, Head({N_EMBD}, {HEAD_SIZE}), "
        f"reading {LINE}. Each row is the character being read, each column a character attended to, and each cell holds "
        f"its weight; above the diagonal every weight is 0, and each row adds up to 1. The first row, {LINE[0]}, can only "
        f"see itself: weight 1. The last row, {LINE[-1]}, gives "
        + ", ".join(f"{c} {v:.2f}" for c, v in zip(LINE, last))
        + (f": most of it to {LINE[top]}." if stands_out else ": no character gets half."),
    }


def draw():
    w = weights()
    T = len(LINE)
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
    for i in range(T):
        for j in range(T):
            v = w[i, j].item()
            ax.text(j, i, f"{v:.2f}" if v else "0", ha="center", va="center", fontsize=10, color="white" if v > 0.6 else "black")
    ax.set_xticks(range(T), list(LINE), fontsize=13)
    ax.set_yticks(range(T), list(LINE), fontsize=13)
    ax.set_xlabel("被关注的字 / attended to")
    ax.set_ylabel("正在读的字 / reading")
    ax.set_title(f"Head({N_EMBD}, {HEAD_SIZE})，随机初始化 / random init", fontsize=10)
    fig.tight_layout()
    return fig
