"""ex6: the GPT block as a diagram, read off a Block built from the solution."""
import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyBboxPatch

from ex6_block import Block

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


def draw():
    b = block()
    check_flow(b)
    fig, ax = plt.subplots(figsize=(6.0, 7.8))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 13)
    ax.set_aspect("equal")
    ax.axis("off")
    x0, w = 2.5, 5.0

    def box(y, name, module, color):
        label = f"{name}: {type(module).__name__}\n{parameters(module):,} 个参数 / parameters"
        ax.add_patch(FancyBboxPatch((x0, y - 0.45), w, 0.9, boxstyle="round,pad=0.08", fc=color, ec="#444444"))
        ax.text(x0 + w / 2, y, label, ha="center", va="center", fontsize=9)

    def plus(y):
        ax.add_patch(plt.Circle((x0 + w / 2, y), 0.3, fc="white", ec="#444444"))
        ax.text(x0 + w / 2, y, "+", ha="center", va="center", fontsize=14)

    def arrow(y_from, y_to, x=x0 + w / 2):
        ax.annotate("", (x, y_to), (x, y_from), arrowprops={"arrowstyle": "->", "color": "#444444"})

    def residual(y_from, y_to):
        xr = x0 + w + 0.7
        ax.plot([x0 + w / 2, xr, xr], [y_from, y_from, y_to], color="#2c6fbb", lw=1.5)
        ax.annotate("", (x0 + w / 2 + 0.3, y_to), (xr, y_to), arrowprops={"arrowstyle": "->", "color": "#2c6fbb", "lw": 1.5})
        ax.text(xr + 0.15, (y_from + y_to) / 2, "残差\nresidual", color="#2c6fbb", fontsize=8, va="center")

    ax.text(x0 + w / 2, 0.5, f"x  (B, T, n_embd={N_EMBD})", ha="center", fontsize=10)
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
    ax.text(x0 + w / 2, 11.7, f"输出 / out  (B, T, n_embd={N_EMBD})", ha="center", fontsize=10)
    ax.set_title(f"Block(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK_SIZE})\n共 {parameters(b):,} 个参数 / parameters in all", fontsize=10)
    return fig
