"""The class report's per-exercise histograms, for the example class graded while the site builds.

``graded_class()`` grades ``examples/submissions`` the way a teacher does,
``python -m grader batch`` (in a subprocess: the batch forks its graders,
which is no business of Sphinx's process), into the build's cache, and reads
it back with ``grader.teacher.report.class_data``; once per build (docs/_ext/build_cache.py). ``draw()`` lays the
report out with ``grader.teacher.report.class_report`` and returns the SVG of its "per
exercise" figure: the picture a teacher's report.html shows for this class,
drawn by the same code.

``draw(narrow=True)`` draws the same histograms for phones, two to a row with
``grader.teacher.report.class_figures``' own bars and style, and text of 10 points in 4 inches
(11 CSS px or more on a 390 px phone, docs/_ext/figure_gen.py): the report's
figure is 6.3 inches wide with text of 7 points.
"""

import functools
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import build_cache  # docs/_ext

from grader.exercises import BY_ID
from grader.teacher.report import class_data, class_figures, class_report

ROOT = Path(__file__).resolve().parents[2]
CLASS = ROOT / "examples" / "submissions"


@functools.cache
def graded_class() -> class_data.ClassData:
    """The example class as a batch grades it: once for the build's processes (build_cache)."""
    folder, _ = build_cache.files_once("example-class", _grade_class)
    data = class_data.read(str(folder / "out"))
    if not data.graded or len(data.graded) != len(data.students):
        raise RuntimeError(f"the example class was not all graded: {[s.id for s in data.students if not s.graded]}")
    return data


def _grade_class(folder: Path) -> dict:
    # --no-report: the page draws what it needs; the docs' environment has no copydetect.
    command = [sys.executable, "-m", "grader", "batch", str(CLASS), "--out", str(folder / "out"), "--no-report"]
    proc = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"grading the example class failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {}


def histograms() -> dict:
    """Exercise -> the report's bins (low, high, count) of the graded students' points, as class_report makes them."""
    data = graded_class()
    return {ex: class_report.bins([s.points[ex] for s in data.graded], data.maxima[ex]) for ex in data.exercises if data.maxima[ex] > 0}


def alt() -> dict:
    data = graded_class()
    means = {ex: statistics.fmean(s.points[ex] for s in data.graded) for ex in histograms()}
    each_zh = "；".join(f"{ex.split('_')[0]} 平均 {m:.1f} / {data.maxima[ex]:g}" for ex, m in means.items())
    each_en = "; ".join(f"{ex.split('_')[0]} {m:.1f} of {data.maxima[ex]:g}" for ex, m in means.items())
    return {
        "zh": f"{len(means)} 张直方图，一道练习一张：示例班级 {len(data.graded)} 名已评分学生每道练习的得分分布，横轴是得分，纵轴是人数。各练习的平均分：{each_zh}。",
        "en": f"{len(means)} histograms, one per exercise: how the example class's {len(data.graded)} graded students scored on each exercise, points across, students up. The mean points: {each_en}.",
    }


def draw(narrow: bool = False):
    if narrow:
        return _draw_narrow(histograms())
    (section,) = [s for s in class_report.sections(graded_class()) if s.id == "exercises"]
    (figure,) = [b for b in section.blocks if isinstance(b, class_report.Figure)]
    return figure.svg


def _draw_narrow(bins_by_exercise: dict):
    """class_figures.exercises' histograms, two to a row and larger, as a matplotlib figure."""
    n = len(bins_by_exercise)
    cols = min(2, n)
    rows = math.ceil(n / cols)
    with class_figures._style():
        fig = class_figures._figure(4.0, 1.75 * rows + 0.3)
        fig.set_layout_engine("constrained")
        axes = list(fig.subplots(rows, cols, squeeze=False).flat)
        for ax, (ex, bins) in zip(axes, bins_by_exercise.items()):
            class_figures._bars(ax, bins)
            e = BY_ID.get(ex)
            ax.set_title(f"{ex.split('_')[0]} {e.en}" if e else ex, fontsize=10, pad=3)
            ax.tick_params(labelsize=10)
        for ax in axes[n:]:
            ax.set_visible(False)
        fig.supxlabel("points", fontsize=10)
        fig.supylabel("students", fontsize=10)
    return fig
