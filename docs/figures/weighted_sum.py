"""ex0: weights from scores, and where the weighted sum lands among the values."""
import matplotlib.pyplot as plt
import torch

from ex0_weighted_sum import weighted_sum

SCORES = torch.tensor([2.0, 1.0, 0.0])
VALUES = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
SHARP, FLAT = "#c0392b", "#7f8c8d"


def _vec(t) -> str:
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def draw():
    fig, (bars, plane) = plt.subplots(1, 2, figsize=(9.5, 3.8), gridspec_kw={"width_ratios": [1.1, 1]})
    cases = [(SCORES, SHARP), (torch.zeros(3), FLAT)]
    width = 0.38
    for i, (scores, color) in enumerate(cases):
        w = torch.softmax(scores, dim=-1)
        xs = torch.arange(3) + (i - 0.5) * width
        drawn = bars.bar(xs, w, width, color=color, label=f"分数 scores {_vec(scores)}")
        bars.bar_label(drawn, labels=[f"{v:.3f}" for v in w.tolist()], fontsize=8)
    bars.set_xticks(range(3), [f"位置 {j}\nposition {j}" for j in range(3)])
    bars.set_ylabel("权重 / weight")
    bars.set_ylim(0, 0.8)
    bars.legend(fontsize=8, loc="upper right")
    bars.set_title("softmax：分数 → 权重 / scores → weights", fontsize=10)

    triangle = torch.cat([VALUES, VALUES[:1]])
    plane.plot(triangle[:, 0], triangle[:, 1], color="#bbbbbb", lw=1, zorder=1)
    plane.scatter(VALUES[:, 0], VALUES[:, 1], s=50, color="#2c6fbb", zorder=2)
    for j, (x, y) in enumerate(VALUES.tolist()):
        plane.annotate(f"值 value {j}\n{_vec(VALUES[j])}", (x, y), textcoords="offset points", xytext=(8, -4), fontsize=8)
    for scores, color in cases:
        s = weighted_sum(scores, VALUES)
        plane.scatter([s[0]], [s[1]], marker="*", s=180, color=color, zorder=3)
        plane.annotate(f"[{s[0]:.3f}, {s[1]:.3f}]", s.tolist(), textcoords="offset points", xytext=(8, 6), fontsize=8, color=color)
    plane.set_xlim(-0.4, 2.9)
    plane.set_ylim(-0.4, 2.6)
    plane.set_aspect("equal")
    plane.set_title("加权求和的结果落在三个值之间 / the summary lies among the values", fontsize=10)
    fig.tight_layout()
    return fig
