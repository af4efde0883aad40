"""ex5: the six steps of one attention head, top to bottom, with the shapes a real head gives.

The seed lesson's six steps (query, key, scaled dot product, softmax, value,
weighted sum) as stacked boxes, tall rather than wide so that it reads on a
phone. Every shape and weight shown comes from running the reference ``Head``
on a short line; none is typed in.
"""
import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from matplotlib.patches import FancyBboxPatch

from ex4_masking import causal_weights
from ex5_head import Head

LINE, N_EMBD, HEAD_SIZE, SEED = "春江花月", 16, 8, 1


def run() -> dict:
    """Every intermediate tensor of one head reading LINE, checked against the head's output."""
    torch.manual_seed(SEED)
    embedding = nn.Embedding(len(LINE), N_EMBD)
    head = Head(N_EMBD, HEAD_SIZE, block_size=len(LINE)).eval()
    with torch.no_grad():
        x = embedding(torch.arange(len(LINE)))[None]  # (B=1, T, n_embd)
        q, k, v = head.query(x), head.key(x), head.value(x)  # (1, T, hs) each
        scores = q @ k.transpose(-2, -1) * HEAD_SIZE**-0.5  # (1, T, T)
        wei = causal_weights(scores)  # (1, T, T)
        out = wei @ v  # (1, T, hs)
        if not torch.allclose(out, head(x), atol=1e-6):
            raise AssertionError("these steps do not give the head's output")
    return {"x": x, "q": q, "k": k, "scores": scores, "wei": wei, "v": v, "out": out}


def _shape(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(n) for n in t.shape) + ")"


def steps(r: dict) -> list[tuple[str, str, str]]:
    """(Chinese, English, code with its shape) for each step."""
    last = LINE[-1]
    row = " ".join(f"{c} {w:.2f}" for c, w in zip(LINE, r["wei"][0, -1].tolist()))
    return [
        ("当前的字用查询 Q 提问", "the current character asks with its query Q", f"q = query(x)   {_shape(r['q'])}"),
        ("每个位置拿出自己的键 K", "every position offers its key K", f"k = key(x)   {_shape(r['k'])}"),
        ("Q 和 K 做点积，再缩放", "dot products of Q and K, then scaling", f"q @ kᵀ × {HEAD_SIZE}^−0.5   {_shape(r['scores'])}"),
        ("遮住未来，softmax 变成权重", "mask the future, softmax into weights", f"“{last}”行 row: {row}"),
        ("值 V 带着各位置的信息", "the values V carry what each position holds", f"v = value(x)   {_shape(r['v'])}"),
        ("权重 × V，再相加", "weights × V, added up", f"out = wei @ v   {_shape(r['out'])}"),
    ]


def draw():
    r = run()
    rows = steps(r)
    height = 2.1  # data units per step
    fig, ax = plt.subplots(figsize=(6.2, 0.62 * (height * len(rows) + 0.9)))  # 0.62 in per data unit, both ways
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.2, height * len(rows) + 0.7)
    ax.set_aspect("equal")  # round circles
    ax.axis("off")
    ax.text(5, height * len(rows) + 0.35,
            f"Head(n_embd={N_EMBD}, head_size={HEAD_SIZE}) 读 reads “{LINE}”，x {_shape(r['x'])}",
            ha="center", va="center", fontsize=12)
    for n, (zh, en, code) in enumerate(rows):
        top = height * (len(rows) - n)
        y = top - height / 2
        ax.add_patch(FancyBboxPatch((0.2, top - height + 0.25), 9.6, height - 0.5,
                                    boxstyle="round,pad=0.02,rounding_size=0.15",
                                    facecolor="#f3effa" if n != 3 else "#e6dcf5", edgecolor="#6a51a3"))
        ax.add_patch(plt.Circle((0.8, y), 0.42, color="#6a51a3"))
        ax.text(0.8, y, str(n + 1), ha="center", va="center", fontsize=15, color="white")
        ax.text(1.5, y + 0.5, zh, ha="left", va="center", fontsize=14)
        ax.text(1.5, y, en, ha="left", va="center", fontsize=11.5, color="#333333")
        ax.text(1.5, y - 0.5, code, ha="left", va="center", fontsize=11, family=["DejaVu Sans Mono", *plt.rcParams["font.family"][1:]], color="#3f007d")
        if n + 1 < len(rows):
            # down to the next box, across the gap between the two
            ax.annotate("", xy=(0.8, top - height - 0.25), xytext=(0.8, top - height + 0.25),
                        arrowprops={"arrowstyle": "-|>", "color": "#6a51a3", "lw": 2, "mutation_scale": 18})
    fig.tight_layout()
    return fig
