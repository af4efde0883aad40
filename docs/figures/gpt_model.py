"""ex7: the whole GPT as a diagram, read off a GPT built from the solution, with generate's loop."""
import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyBboxPatch

from ex7_gpt import GPT

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


def draw():
    m = model()
    check_flow(m)
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
        mid, 12.0,
        "generate：最后一个位置 → softmax → torch.multinomial → 下一个字\n"
        "last position → softmax → torch.multinomial → next token",
        ha="center", va="center", fontsize=8.5,
    )
    # The loop: the new token is appended to idx, which is cropped to the last block_size tokens.
    xr = 10.6
    ax.plot([mid + 3.3, xr, xr], [12.0, 12.0, 0.6], color="#2c6fbb", lw=1.5)
    ax.annotate("", (mid + 3.2, 0.6), (xr, 0.6), arrowprops={"arrowstyle": "->", "color": "#2c6fbb", "lw": 1.5})
    ax.text(
        xr + 0.15, 6.3,
        f"接在后面，\n只留最后\nblock_size={BLOCK_SIZE}\n个字\n\nappend,\nkeep the last\nblock_size={BLOCK_SIZE}",
        color="#2c6fbb", fontsize=8, va="center",
    )
    ax.set_title(
        f"GPT(vocab_size={VOCAB_SIZE}, n_embd={N_EMBD}, n_head={N_HEAD}, n_layer={N_LAYER}, block_size={BLOCK_SIZE})\n"
        f"共 {parameters(m):,} 个参数 / parameters in all",
        fontsize=10,
    )
    return fig
