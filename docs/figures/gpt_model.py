"""ex7: the whole GPT as a diagram, read off a GPT built from the solution, with generate's loop.

The narrow variant, for phones, is 4.4 inches wide with no text under 10
points (11 CSS px or more on a 390 px phone, docs/_ext/figure_gen.py): one
column, the position embeddings coming in from the side.
"""

import matplotlib.pyplot as plt
import torch
from ex7_gpt import GPT
from matplotlib.patches import FancyBboxPatch

VOCAB_SIZE, N_EMBD, N_HEAD, N_LAYER, BLOCK_SIZE = 65, 32, 4, 3, 8


def model() -> GPT:
    torch.manual_seed(0)
    return GPT(VOCAB_SIZE, N_EMBD, N_HEAD, N_LAYER, BLOCK_SIZE).eval()


def parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())


def check_flow(m: GPT) -> None:
    """The diagram's data flow is the model's forward: embeddings added, blocks, ln_f, lm_head."""
    idx = torch.randint(VOCAB_SIZE, (2, 5))
    with torch.no_grad():
        x = m.token_embedding_table(idx) + m.position_embedding_table(torch.arange(5))
        if not torch.allclose(m(idx)[0], m.lm_head(m.ln_f(m.blocks(x))), atol=1e-6):
            raise AssertionError("GPT.forward is not lm_head(ln_f(blocks(tok + pos)))")


def alt() -> dict:
    m = model()
    p = {name: (type(x).__name__, f"{parameters(x):,}") for name, x in m.named_children()}
    zh = {name: f"{name}（{kind}，{n} 个参数）" for name, (kind, n) in p.items()}
    en = {name: f"{name} ({kind}, {n} parameters)" for name, (kind, n) in p.items()}
    return {
        "zh": f"整个 GPT(vocab_size={VOCAB_SIZE}, n_embd={N_EMBD}, n_head={N_HEAD}, n_layer={N_LAYER}, block_size={BLOCK_SIZE}) "
        f"的示意图，从下往上：字的编号 idx (B, T) 查 {zh['token_embedding_table']}，位置 arange(T) 查 "
        f"{zh['position_embedding_table']}，两者相加；然后依次经过 {zh['blocks'].replace('Sequential', f'{N_LAYER} 个 Block')}、"
        f"{zh['ln_f']}、{zh['lm_head']}，得到 logits (B, T, vocab_size={VOCAB_SIZE})。generate 取最后一个位置的 logits，"
        f"softmax 之后用 torch.multinomial 抽出下一个字，接在 idx 后面，只留最后 block_size={BLOCK_SIZE} 个字，再来一次。"
        f"共 {parameters(m):,} 个参数。",
        "en": f"A diagram of the whole GPT(vocab_size={VOCAB_SIZE}, n_embd={N_EMBD}, n_head={N_HEAD}, n_layer={N_LAYER}, "
        f"block_size={BLOCK_SIZE}), bottom to top: the token ids idx (B, T) look up {en['token_embedding_table']}, the "
        f"positions arange(T) look up {en['position_embedding_table']}, and the two are added; then "
        f"{en['blocks'].replace('Sequential', f'{N_LAYER} Blocks')}, {en['ln_f']} and {en['lm_head']} give the logits "
        f"(B, T, vocab_size={VOCAB_SIZE}). generate takes the last position's logits, draws the next token from their "
        f"softmax with torch.multinomial, appends it to idx, keeps the last block_size={BLOCK_SIZE} tokens and goes again. "
        f"{parameters(m):,} parameters in all.",
    }


def _box(ax, x, y, w, h, label, color, fontsize):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.08", fc=color, ec="#444444"))
    ax.text(x, y, label, ha="center", va="center", fontsize=fontsize)


def _label(name, module, note="", sep=": ") -> str:
    return f"{name}{sep}{type(module).__name__}{note}\n{parameters(module):,} 个参数 / parameters"


def _arrow(ax, x, y_from, y_to, x_to=None):
    ax.annotate("", (x if x_to is None else x_to, y_to), (x, y_from), arrowprops={"arrowstyle": "->", "color": "#444444"})


def _draw_narrow(m):
    """One column: idx, token embeddings, + (the position embeddings from the right), blocks, ln_f, lm_head, logits."""
    fs, unit = 10, 0.42  # points; inches per data unit, both ways
    xmax, ymax = 10.2, 14.4
    fig = plt.figure(figsize=(unit * xmax, unit * ymax))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, xmax)
    ax.set_ylim(-0.1, ymax - 0.1)
    ax.axis("off")
    cx, w = 2.95, 5.7  # the main column
    ax.text(cx, 0.4, "idx  (B, T)\n字的编号 / token ids", ha="center", va="center", fontsize=fs)
    _arrow(ax, cx, 0.95, 1.55)
    _box(ax, cx, 2.2, w, 1.1, _label("token_embedding_table", m.token_embedding_table, sep="\n"), "#f3f3f3", fs)
    _arrow(ax, cx, 2.85, 3.55)
    ax.add_patch(plt.Circle((cx, 3.85), 0.3, fc="white", ec="#444444"))
    ax.text(cx, 3.85, "+", ha="center", va="center", fontsize=14)
    px, pw = 7.45, 4.7  # the position embeddings, on the right of the +
    _box(ax, px, 3.85, pw, 1.1, _label("position_embedding_table", m.position_embedding_table, sep="\n"), "#f3f3f3", fs)
    _arrow(ax, px - pw / 2 - 0.1, 3.85, 3.85, x_to=cx + 0.3)
    ax.text(px, 2.2, "arange(T)\n位置 / positions", ha="center", va="center", fontsize=fs, color="#2c6fbb")
    _arrow(ax, px, 2.7, 3.2)
    _arrow(ax, cx, 4.15, 4.75)
    _box(ax, cx, 5.3, w, 0.85, _label("blocks", m.blocks, f" × {N_LAYER} Block"), "#dbe8f7", fs)
    _arrow(ax, cx, 5.8, 6.35)
    _box(ax, cx, 6.85, w, 0.85, _label("ln_f", m.ln_f), "#f3f3f3", fs)
    _arrow(ax, cx, 7.35, 7.9)
    _box(ax, cx, 8.4, w, 0.85, _label("lm_head", m.lm_head), "#fbe3d3", fs)
    _arrow(ax, cx, 8.9, 9.4)
    ax.text(cx, 9.7, f"logits  (B, T, vocab_size={VOCAB_SIZE})", ha="center", va="center", fontsize=fs)
    _arrow(ax, cx, 10.0, 10.5)
    ax.text(cx, 11.5, "generate：最后一个位置 → softmax\n→ torch.multinomial → 下一个字\nlast position → softmax →\ntorch.multinomial → next token", ha="center", va="center", fontsize=fs)
    # The loop: the new token is appended to idx, which is cropped to the last block_size tokens.
    xr = xmax - 0.15
    ax.plot([cx + 3.0, xr, xr], [11.5, 11.5, 0.4], color="#2c6fbb", lw=1.5)
    ax.annotate("", (cx + 1.9, 0.4), (xr, 0.4), arrowprops={"arrowstyle": "->", "color": "#2c6fbb", "lw": 1.5})
    ax.text(6.1, 7.8, f"接在后面，\n只留最后\nblock_size={BLOCK_SIZE}\n个字\n\nappend,\nkeep the last\nblock_size={BLOCK_SIZE}", color="#2c6fbb", fontsize=fs, va="center")
    ax.text(
        xmax / 2,
        13.4,
        f"GPT(vocab_size={VOCAB_SIZE}, n_embd={N_EMBD},\nn_head={N_HEAD}, n_layer={N_LAYER}, block_size={BLOCK_SIZE})\n共 {parameters(m):,} 个参数 / parameters in all",
        ha="center",
        va="center",
        fontsize=fs,
    )
    return fig


def draw(narrow: bool = False):
    m = model()
    check_flow(m)
    if narrow:
        return _draw_narrow(m)
    fig, ax = plt.subplots(figsize=(7.2, 7.8))
    ax.set_xlim(0, 12)
    ax.set_ylim(0, 12.8)
    ax.set_aspect("equal")
    ax.axis("off")
    mid = 5.0

    def box(x, y, w, name, module, color, note="", h=0.9):
        sep = "\n" if h > 0.9 else ": "  # a long name on a line of its own
        label = f"{name}{sep}{type(module).__name__}{note}\n{parameters(module):,} 个参数 / parameters"
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.08", fc=color, ec="#444444"))
        ax.text(x, y, label, ha="center", va="center", fontsize=8.5)

    def arrow(x, y_from, y_to):
        ax.annotate("", (x, y_to), (x, y_from), arrowprops={"arrowstyle": "->", "color": "#444444"})

    ax.text(mid, 0.5, "idx  (B, T)：字的编号 / token ids", ha="center", fontsize=10)
    arrow(mid - 2.2, 0.8, 1.6)
    arrow(mid + 2.2, 0.8, 1.6)
    box(mid - 2.2, 2.2, 4.0, "token_embedding_table", m.token_embedding_table, "#f3f3f3", h=1.2)
    box(mid + 2.2, 2.2, 4.0, "position_embedding_table", m.position_embedding_table, "#f3f3f3", h=1.2)
    ax.text(mid + 2.35, 1.2, "arange(T)\n位置 / positions", ha="left", va="center", fontsize=8, color="#2c6fbb")
    ax.add_patch(plt.Circle((mid, 3.6), 0.3, fc="white", ec="#444444"))
    ax.text(mid, 3.6, "+", ha="center", va="center", fontsize=14)
    ax.plot([mid - 2.2, mid - 2.2, mid - 0.3], [2.9, 3.6, 3.6], color="#444444", lw=1)
    ax.plot([mid + 2.2, mid + 2.2, mid + 0.3], [2.9, 3.6, 3.6], color="#444444", lw=1)
    arrow(mid, 3.9, 4.8)
    box(mid, 5.3, 5.0, "blocks", m.blocks, "#dbe8f7", f" × {N_LAYER} Block")
    arrow(mid, 5.8, 6.6)
    box(mid, 7.1, 5.0, "ln_f", m.ln_f, "#f3f3f3")
    arrow(mid, 7.6, 8.4)
    box(mid, 8.9, 5.0, "lm_head", m.lm_head, "#fbe3d3")
    arrow(mid, 9.4, 10.1)
    ax.text(mid, 10.4, f"logits  (B, T, vocab_size={VOCAB_SIZE})", ha="center", fontsize=10)
    arrow(mid, 10.7, 11.5)
    ax.text(
        mid,
        12.0,
        "generate：最后一个位置 → softmax → torch.multinomial → 下一个字\nlast position → softmax → torch.multinomial → next token",
        ha="center",
        va="center",
        fontsize=8.5,
    )
    # The loop: the new token is appended to idx, which is cropped to the last block_size tokens.
    xr = 10.6
    ax.plot([mid + 3.3, xr, xr], [12.0, 12.0, 0.6], color="#2c6fbb", lw=1.5)
    ax.annotate("", (mid + 3.2, 0.6), (xr, 0.6), arrowprops={"arrowstyle": "->", "color": "#2c6fbb", "lw": 1.5})
    ax.text(
        xr + 0.15,
        6.3,
        f"接在后面，\n只留最后\nblock_size={BLOCK_SIZE}\n个字\n\nappend,\nkeep the last\nblock_size={BLOCK_SIZE}",
        color="#2c6fbb",
        fontsize=8,
        va="center",
    )
    ax.set_title(
        f"GPT(vocab_size={VOCAB_SIZE}, n_embd={N_EMBD}, n_head={N_HEAD}, n_layer={N_LAYER}, block_size={BLOCK_SIZE})\n共 {parameters(m):,} 个参数 / parameters in all",
        fontsize=10,
    )
    return fig
