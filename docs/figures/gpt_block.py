"""ex6: the GPT block as a diagram, read off a Block built from the solution.

The narrow variant, for phones, is the same diagram 4.4 inches wide with no
text under 10 points (11 CSS px or more on a 390 px phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
from ex6_block import Block
from matplotlib.patches import FancyBboxPatch

N_EMBD, N_HEAD, BLOCK_SIZE = 32, 4, 8


def block() -> Block:
    torch.manual_seed(0)
    return Block(N_EMBD, N_HEAD, BLOCK_SIZE).eval()


def parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())


def check_flow(b: Block) -> None:
    """The diagram's data flow is the block's forward: pre-norm, two residuals."""
    x = torch.randn(2, 5, N_EMBD)
    with torch.no_grad():
        h = x + b.sa(b.ln1(x))
        if not torch.allclose(b(x), h + b.ffwd(b.ln2(h)), atol=1e-6):
            raise AssertionError("Block.forward is not x + sa(ln1(x)), then + ffwd(ln2(.))")


def alt() -> dict:
    b = block()
    parts = [("ln1", b.ln1), ("sa", b.sa), ("ln2", b.ln2), ("ffwd", b.ffwd)]
    p = {name: f"{name}（{type(m).__name__}，{parameters(m):,} 个参数）" for name, m in parts}
    q = {name: f"{name} ({type(m).__name__}, {parameters(m):,} parameters)" for name, m in parts}
    return {
        "zh": f"GPT 块 Block(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK_SIZE}) 的示意图，从下往上："
        f"输入 x (B, T, n_embd={N_EMBD}) 经过 {p['ln1']}和 {p['sa']}，再加回 x（第一条残差连接）；"
        f"结果经过 {p['ln2']}和 {p['ffwd']}，再加回自己（第二条残差连接），得到同样形状的输出。共 {parameters(b):,} 个参数。",
        "en": f"A diagram of the GPT block Block(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK_SIZE}), bottom to top: "
        f"the input x (B, T, n_embd={N_EMBD}) goes through {q['ln1']} and {q['sa']} and is added back to x (the first "
        f"residual connection); the result goes through {q['ln2']} and {q['ffwd']} and is added back to itself (the second), "
        f"giving an output of the same shape. {parameters(b):,} parameters in all.",
    }


def draw(narrow: bool = False):
    b = block()
    check_flow(b)
    # font sizes: the boxes, the residuals' labels, the other text
    box_size, side_size, text_size = (10, 10, 10.5) if narrow else (9, 8, 10)
    fig, ax = plt.subplots(figsize=(4.4, 5.72) if narrow else (6.0, 7.8))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 13)
    ax.set_aspect("equal")
    ax.axis("off")
    x0, w = (1.6, 6.0) if narrow else (2.5, 5.0)

    def box(y, name, module, color):
        label = f"{name}: {type(module).__name__}\n{parameters(module):,} 个参数 / parameters"
        ax.add_patch(FancyBboxPatch((x0, y - 0.45), w, 0.9, boxstyle="round,pad=0.08", fc=color, ec="#444444"))
        ax.text(x0 + w / 2, y, label, ha="center", va="center", fontsize=box_size)

    def plus(y):
        ax.add_patch(plt.Circle((x0 + w / 2, y), 0.3, fc="white", ec="#444444"))
        ax.text(x0 + w / 2, y, "+", ha="center", va="center", fontsize=14)

    def arrow(y_from, y_to, x=x0 + w / 2):
        ax.annotate("", (x, y_to), (x, y_from), arrowprops={"arrowstyle": "->", "color": "#444444"})

    def residual(y_from, y_to):
        xr = x0 + w + 0.7
        ax.plot([x0 + w / 2, xr, xr], [y_from, y_from, y_to], color="#2c6fbb", lw=1.5)
        ax.annotate("", (x0 + w / 2 + 0.3, y_to), (xr, y_to), arrowprops={"arrowstyle": "->", "color": "#2c6fbb", "lw": 1.5})
        ax.text(xr + 0.15, (y_from + y_to) / 2, "残差\nresidual", color="#2c6fbb", fontsize=side_size, va="center")

    ax.text(x0 + w / 2, 0.5, f"x  (B, T, n_embd={N_EMBD})", ha="center", fontsize=text_size)
    arrow(0.8, 1.6)
    box(2.1, "ln1", b.ln1, "#f3f3f3")
    arrow(2.6, 3.4)
    box(3.9, "sa", b.sa, "#dbe8f7")
    arrow(4.4, 5.0)
    plus(5.3)
    residual(1.2, 5.3)
    arrow(5.6, 6.6)
    box(7.1, "ln2", b.ln2, "#f3f3f3")
    arrow(7.6, 8.4)
    box(8.9, "ffwd", b.ffwd, "#fbe3d3")
    arrow(9.4, 10.0)
    plus(10.3)
    residual(6.1, 10.3)
    arrow(10.6, 11.4)
    ax.text(x0 + w / 2, 11.7, f"输出 / out  (B, T, n_embd={N_EMBD})", ha="center", fontsize=text_size)
    ax.set_title(f"Block(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK_SIZE})\n共 {parameters(b):,} 个参数 / parameters in all", fontsize=text_size)
    return fig
