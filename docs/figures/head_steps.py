"""ex5: the six steps of one attention head, top to bottom, with the shapes a real head gives.

The seed lesson's six steps (query, key, scaled dot product, softmax, value,
weighted sum) as stacked boxes, tall rather than wide. Every shape and weight
shown comes from running the reference ``Head`` on a short line; none is typed in.
The narrow variant, for phones, is the same boxes 4.6 inches wide with no text
under 10 points (11 CSS px or more on a 390 px phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from ex4_masking import causal_weights
from ex5_head import Head
from matplotlib.patches import FancyBboxPatch

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


def steps(r: dict, narrow: bool = False) -> list[tuple[str, str, str]]:
    """(Chinese, English, code with its shape) for each step; narrow: the weights' line shorter, for a phone."""
    last = LINE[-1]
    row = " ".join(f"{c} {w:.2f}" for c, w in zip(LINE, r["wei"][0, -1].tolist()))
    label = f"“{last}”:" if narrow else f"“{last}”行 row:"
    return [
        ("当前的字用查询 Q 提问", "the current character asks with its query Q", f"q = query(x)   {_shape(r['q'])}"),
        ("每个位置拿出自己的键 K", "every position offers its key K", f"k = key(x)   {_shape(r['k'])}"),
        ("Q 和 K 做点积，再缩放", "dot products of Q and K, then scaling", f"q @ kᵀ × {HEAD_SIZE}^−0.5   {_shape(r['scores'])}"),
        ("遮住未来，softmax 变成权重", "mask the future, softmax into weights", f"{label} {row}"),
        ("值 V 带着各位置的信息", "the values V carry what each position holds", f"v = value(x)   {_shape(r['v'])}"),
        ("权重 × V，再相加", "weights × V, added up", f"out = wei @ v   {_shape(r['out'])}"),
    ]


def alt() -> dict:
    r = run()
    row = f"“{LINE[-1]}”行 row:"  # the weights' step quotes both languages
    zh = [(t, code.replace(row, f"“{LINE[-1]}”这一行的权重是")) for t, _, code in steps(r)]
    en = [(t, code.replace(row, f"the weights of the row of {LINE[-1]} are")) for _, t, code in steps(r)]
    return {
        "zh": f"一个注意力头 Head(n_embd={N_EMBD}, head_size={HEAD_SIZE}) 读“{LINE}”（x 的形状是 {_shape(r['x'])}）的六步，"
        "从上往下：" + "；".join(f"{n + 1}. {t}：{code}" for n, (t, code) in enumerate(zh)) + "。",
        "en": f"The six steps of one attention head, Head(n_embd={N_EMBD}, head_size={HEAD_SIZE}), reading {LINE} "
        f"(x of shape {_shape(r['x'])}), top to bottom: " + "; ".join(f"{n + 1}. {t}: {code}" for n, (t, code) in enumerate(en)) + ".",
    }


def draw(narrow: bool = False):
    r = run()
    rows = steps(r, narrow)
    height = 2.1  # data units per step
    inch = 0.46 if narrow else 0.62  # inches per data unit, both ways
    zh_size, en_size, code_size, title_size = (13, 10.5, 10, 11) if narrow else (14, 11.5, 11, 12)
    fig, ax = plt.subplots(figsize=(10 * inch, inch * (height * len(rows) + (1.4 if narrow else 0.9))))
    ax.set_xlim(0, 10)
    top_margin = 1.2 if narrow else 0.7
    ax.set_ylim(-0.2, height * len(rows) + top_margin)
    ax.set_aspect("equal")  # round circles
    ax.axis("off")
    title = f"Head(n_embd={N_EMBD}, head_size={HEAD_SIZE}) 读 reads “{LINE}”，x {_shape(r['x'])}"
    if narrow:
        title = title.replace(" 读", "\n读")
    ax.text(5, height * len(rows) + top_margin / 2, title, ha="center", va="center", fontsize=title_size)
    for n, (zh, en, code) in enumerate(rows):
        top = height * (len(rows) - n)
        y = top - height / 2
        ax.add_patch(FancyBboxPatch((0.2, top - height + 0.25), 9.6, height - 0.5, boxstyle="round,pad=0.02,rounding_size=0.15", facecolor="#f3effa" if n != 3 else "#e6dcf5", edgecolor="#6a51a3"))
        ax.add_patch(plt.Circle((0.8, y), 0.42, color="#6a51a3"))
        ax.text(0.8, y, str(n + 1), ha="center", va="center", fontsize=15 if not narrow else 13, color="white")
        ax.text(1.5, y + 0.5, zh, ha="left", va="center", fontsize=zh_size)
        ax.text(1.5, y, en, ha="left", va="center", fontsize=en_size, color="#333333")
        ax.text(1.5, y - 0.5, code, ha="left", va="center", fontsize=code_size, family=["DejaVu Sans Mono", *plt.rcParams["font.family"][1:]], color="#3f007d")
        if n + 1 < len(rows):
            # down to the next box, across the gap between the two
            ax.annotate("", xy=(0.8, top - height - 0.25), xytext=(0.8, top - height + 0.25), arrowprops={"arrowstyle": "-|>", "color": "#6a51a3", "lw": 2, "mutation_scale": 18})
    fig.tight_layout()
    return fig
