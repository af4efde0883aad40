"""The class report's histograms, drawn with matplotlib as SVG.

matplotlib is a teacher's tool: it is imported here, and only when a figure
is drawn, so grading never pays for it. Figures use the Figure class
directly (no pyplot: no global state, a faster import) and draw text as
paths, so they look the same where no font is installed. Their labels are
English and short, since a Chinese font may be missing where matplotlib
runs; the report's captions carry both languages.
"""

import io

from grader.exercises import BY_ID

# Bins are (low, high, count), computed by the report so that the Markdown's
# table and the figure show the same counts.

STYLE = {
    "svg.fonttype": "path",  # no font needed where the report is opened
    "svg.hashsalt": "class-report",  # the same ids every time: an unchanged class gives an unchanged file
    "font.family": "DejaVu Sans",  # shipped with matplotlib
    "font.size": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BAR = "#4C72B0"


def _style():
    import matplotlib

    matplotlib.use("Agg")  # never a window, whatever the machine offers
    return matplotlib.rc_context(STYLE)


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def preload() -> None:
    """Import matplotlib and draw a tiny figure, so that drawing the report
    later costs only the drawing (the batch does this while the class is
    graded: see ``class_files``)."""
    totals([(0.0, 1.0, 1)], 0.5, 0.5)


def _bars(ax, bins) -> None:
    from matplotlib.ticker import MaxNLocator

    lows = [lo for lo, _, _ in bins]
    widths = [hi - lo for lo, hi, _ in bins]
    ax.bar(lows, [n for _, _, n in bins], width=widths, align="edge", color=BAR, edgecolor="white", linewidth=0.5)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(bins[0][0], bins[-1][1])


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def totals(bins, mean: float | None, median: float | None) -> str:
    """A histogram of the class's totals, with the mean and median marked."""
    with _style():
        fig = _figure(6.3, 1.9)
        ax = fig.add_subplot()
        _bars(ax, bins)
        for x, style, label in ((mean, "--", "mean"), (median, ":", "median")):
            if x is not None:
                ax.axvline(x, color="#C44E52", linestyle=style, linewidth=1.2, label=f"{label} {x:.1f}")
        if mean is not None:
            ax.legend(frameon=False, loc="upper left")
        ax.set_xlabel("total points")
        ax.set_ylabel("students")
        fig.subplots_adjust(left=0.07, right=0.97, bottom=0.22, top=0.96)  # by hand: see exercises()
        return _svg(fig)


def exercises(bins_by_exercise: dict) -> str:
    """One small histogram per exercise, side by side, in one figure (one
    figure is much faster to draw than one per exercise)."""
    n = len(bins_by_exercise)
    cols = min(4, n) or 1
    rows = -(-n // cols) or 1
    # Sizes in inches, margins set by hand: tight_layout measures every label
    # first, which takes longer than the drawing.
    panel, gap, top, bottom = 1.05, 0.42, 0.2, 0.42
    height = rows * panel + (rows - 1) * gap + top + bottom
    with _style():
        fig = _figure(6.3, height)
        fig.subplots_adjust(left=0.05, right=0.98, bottom=bottom / height, top=1 - top / height, wspace=0.3, hspace=gap / panel)
        axes = list(fig.subplots(rows, cols, squeeze=False).flat)
        for ax, (ex, bins) in zip(axes, bins_by_exercise.items()):
            _bars(ax, bins)
            e = BY_ID.get(ex)
            ax.set_title(f"{ex.split('_')[0]} {e.en}" if e else ex, fontsize=7, pad=3)
        for ax in axes[n:]:  # panels left over in the grid
            ax.set_visible(False)
        fig.supxlabel("points", fontsize=7, y=0.02)
        return _svg(fig)
