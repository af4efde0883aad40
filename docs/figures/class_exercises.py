"""The class report's per-exercise histograms, for the example class graded while the site builds.

``graded_class()`` grades ``examples/submissions`` the way a teacher does,
``python -m grader batch`` (in a subprocess: the batch forks its graders,
which is no business of Sphinx's process), into a temporary folder, and reads
it back with ``grader.class_data``; once per build. ``draw()`` lays the
report out with ``grader.class_report`` and returns the SVG of its "per
exercise" figure: the picture a teacher's report.html shows for this class,
drawn by the same code.
"""
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader import class_data, class_report

ROOT = Path(__file__).resolve().parents[2]
CLASS = ROOT / "examples" / "submissions"


@functools.cache
def graded_class() -> class_data.ClassData:
    with tempfile.TemporaryDirectory(prefix="docs-class-") as tmp:
        out = Path(tmp) / "out"
        # --no-report: the page draws what it needs; the docs' environment has no copydetect.
        command = [sys.executable, "-m", "grader", "batch", str(CLASS), "--out", str(out), "--no-report"]
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
        data = class_data.read(str(out))
    if not data.graded or len(data.graded) != len(data.students):
        raise RuntimeError(f"the example class was not all graded: {[s.id for s in data.students if not s.graded]}")
    return data


def draw() -> str:
    (section,) = [s for s in class_report.sections(graded_class()) if s.id == "exercises"]
    (figure,) = [b for b in section.blocks if isinstance(b, class_report.Figure)]
    return figure.svg
