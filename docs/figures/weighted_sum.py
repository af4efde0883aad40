"""ex0: weights from scores, and where the weighted sum lands among the values.

Wide: the two panels side by side. Narrow, for phones: one under the other,
4 inches wide with no text under 9.5 points (11 CSS px or more on a 390 px
phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt
import torch
from ex0_weighted_sum import weighted_sum

SCORES = torch.tensor([2.0, 1.0, 0.0])
VALUES = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
SHARP, FLAT = "#c0392b", "#7f8c8d"
CASES = [(SCORES, SHARP), (torch.zeros(3), FLAT)]


def _vec(t) -> str:
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def alt() -> dict:
    (sharp, _), (flat, _) = CASES
    ws, wf = torch.softmax(sharp, dim=-1), torch.softmax(flat, dim=-1)
    ss, sf = weighted_sum(sharp, VALUES), weighted_sum(flat, VALUES)
    nums = lambda w: ", ".join(f"{v:.3f}" for v in w.tolist())  # noqa: E731 - a one-line helper
    point = lambda s: f"[{s[0]:.3f}, {s[1]:.3f}]"  # noqa: E731 - a one-line helper
    values = ", ".join(_vec(v) for v in VALUES)
    return {
        "zh": f"两幅图。柱状图：softmax 把分数 {_vec(sharp)} 变成权重 {nums(ws).replace(', ', '、')}（红），"
        f"把分数 {_vec(flat)} 变成 {nums(wf).replace(', ', '、')}（灰）。平面图：三个值向量 {values.replace('], [', ']、[')} "
        f"是一个三角形的三个顶点，两种权重下加权求和的结果 {point(ss)}（红星）和 {point(sf)}（灰星）都落在三角形里。",
        "en": f"Two plots. Bars: softmax turns the scores {_vec(sharp)} into the weights {nums(ws)} (red) and the scores "
        f"{_vec(flat)} into {nums(wf)} (grey). Plane: the three values {values} are the corners of a triangle; the summaries "
        f"under the two sets of weights, {point(ss)} (red star) and {point(sf)} (grey star), both lie inside it.",
    }


def draw(narrow: bool = False):
    small = 9.5 if narrow else 8  # the bars' numbers, the legend, the points' labels
    if narrow:
        fig, (bars, plane) = plt.subplots(2, 1, figsize=(4.0, 7.6), gridspec_kw={"height_ratios": [1, 1.05]})
    else:
        fig, (bars, plane) = plt.subplots(1, 2, figsize=(9.5, 3.8), gridspec_kw={"width_ratios": [1.1, 1]})
    width = 0.38
    for i, (scores, color) in enumerate(CASES):
        w = torch.softmax(scores, dim=-1)
        xs = torch.arange(3) + (i - 0.5) * width
        drawn = bars.bar(xs, w, width, color=color, label=f"分数 scores {_vec(scores)}")
        bars.bar_label(drawn, labels=[f"{v:.3f}" for v in w.tolist()], fontsize=small, rotation=90 if narrow else 0, padding=3)
    bars.set_xticks(range(3), [f"位置 {j}\nposition {j}" for j in range(3)])
    bars.set_ylabel("权重 / weight")
    bars.set_ylim(0, 0.95 if narrow else 0.8)
    bars.legend(fontsize=small, loc="upper right")
    bars.set_title("softmax：分数 → 权重\nscores → weights" if narrow else "softmax：分数 → 权重 / scores → weights", fontsize=10)

    triangle = torch.cat([VALUES, VALUES[:1]])
    plane.plot(triangle[:, 0], triangle[:, 1], color="#bbbbbb", lw=1, zorder=1)
    plane.scatter(VALUES[:, 0], VALUES[:, 1], s=50, color="#2c6fbb", zorder=2)
    for j, (x, y) in enumerate(VALUES.tolist()):
        plane.annotate(f"值 value {j}\n{_vec(VALUES[j])}", (x, y), textcoords="offset points", xytext=(8, -4), fontsize=small)
    for scores, color in CASES:
        s = weighted_sum(scores, VALUES)
        plane.scatter([s[0]], [s[1]], marker="*", s=180, color=color, zorder=3)
        plane.annotate(f"[{s[0]:.3f}, {s[1]:.3f}]", s.tolist(), textcoords="offset points", xytext=(8, 6), fontsize=small, color=color)
    plane.set_xlim(-0.4, 3.2 if narrow else 2.9)
    plane.set_ylim(-0.4, 2.6)
    plane.set_aspect("equal")
    title = "加权求和的结果落在三个值之间 / the summary lies among the values"
    plane.set_title(title.replace(" / ", "\n") if narrow else title, fontsize=10)
    fig.tight_layout()
    return fig
