"""ex1: the row-normalised lower-triangular averaging matrix."""
import matplotlib.pyplot as plt

from ex1_averaging import averaging_matrix

T = 6


def draw():
    w = averaging_matrix(T)
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.imshow(w, cmap="Blues", vmin=0, vmax=1.3)
    for i in range(T):
        for j in range(T):
            v = w[i, j].item()
            ax.text(j, i, f"{v:.2f}" if v else "0", ha="center", va="center", fontsize=9, color="black" if v < 0.6 else "white")
    ax.set_xticks(range(T))
    ax.set_yticks(range(T))
    ax.set_xlabel("被平均的位置 j / position j being averaged")
    ax.set_ylabel("输出位置 i / output position i")
    ax.set_title(f"averaging_matrix({T})", fontsize=10)
    fig.tight_layout()
    return fig
