"""ex1: the row-normalised lower-triangular averaging matrix.

One picture for every screen: no text under 10 points, 11 CSS px or more on a
390 px phone (docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
from ex1_averaging import averaging_matrix

T = 6


def alt() -> dict:
    w = averaging_matrix(T)
    firsts = [f"{w[i, 0].item():.2f}" for i in range(T)]
    return {
        "zh": f"{T}×{T} 的表，averaging_matrix({T})，格子里写着数：第 i 行的前 i + 1 格都是 1/(i + 1)，从第 0 行到第 {T - 1} 行依次是 {'、'.join(firsts)}；对角线以上都是 0，每行之和为 1。",
        "en": f"A {T}×{T} table, averaging_matrix({T}), with the numbers in its cells: the first i + 1 cells of row i "
        f"are 1/(i + 1), {', '.join(firsts)} from row 0 to row {T - 1}; everything above the diagonal is 0, "
        "and each row adds up to 1.",
    }


def draw():
    w = averaging_matrix(T)
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.imshow(w, cmap="Blues", vmin=0, vmax=1.3)
    for i in range(T):
        for j in range(T):
            v = w[i, j].item()
            ax.text(j, i, f"{v:.2f}" if v else "0", ha="center", va="center", fontsize=10, color="black" if v < 0.6 else "white")
    ax.set_xticks(range(T))
    ax.set_yticks(range(T))
    ax.set_xlabel("被平均的位置 j / position j being averaged")
    ax.set_ylabel("输出位置 i / output position i")
    ax.set_title(f"averaging_matrix({T})", fontsize=10)
    fig.tight_layout()
    return fig
