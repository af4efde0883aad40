"""The catalogue's mistakes for one exercise, with the checks that catch each.

``{mistake-table} ex4_masking`` is a table with a row per file
``tests/catalogue/wrong/ex4_masking__<mistake>.py``: the mistake (the file's
name and the first line of its docstring) and the checks it fails, public
first, then hidden ones marked so, found by grading it with the teacher's
checks (``grader_output.py``'s grading script with ``--all-checks``, which
grades only the replaced exercise). tests/test_catalogue.py holds every
catalogue file to losing points, so every row names at least one check.

The page is in the teacher edition only; all the catalogue files are graded
in one run of that script, the first time a table is needed.
"""
import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

import grader_output
from bilingual import lang_inline
from grader.exercises import BY_ID, IDS

WRONG = grader_output.WRONG


def stems(exercise: str | None = None) -> list[str]:
    """The catalogue's mistakes (file stems), of one exercise or of all."""
    return sorted(p.stem for p in WRONG.glob("*.py") if exercise is None or p.stem.split("__")[0] == exercise)


def mistake(stem: str) -> str:
    """The first line of the file's docstring, without its "ex4 mistake: " prefix."""
    doc = ast.get_docstring(ast.parse((WRONG / f"{stem}.py").read_text(encoding="utf-8"))) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else stem
    head, sep, rest = first.partition(" mistake: ")
    return rest if sep and " " not in head else first


_graded: dict[str, dict] = {}  # stem -> that catalogue file graded with every check


def graded() -> dict:
    """Every catalogue file graded with the teacher's checks (once per build)."""
    missing = [s for s in stems() if s not in _graded]
    if missing:
        fd, result_file = tempfile.mkstemp(prefix="docs-mistakes-", suffix=".json")
        os.close(fd)
        try:
            proc = subprocess.run(
                [sys.executable, grader_output.__file__, "--all-checks", result_file, *missing],
                cwd=grader_output.ROOT, capture_output=True, text=True, timeout=900,
                env={**os.environ, "PYTHONPATH": os.pathsep.join([str(grader_output.ROOT), os.environ.get("PYTHONPATH", "")])},
            )
            if proc.returncode != 0:
                raise RuntimeError(f"grading the catalogue failed:\n{proc.stderr[-3000:]}")
            _graded.update(json.loads(Path(result_file).read_text(encoding="utf-8")))
        finally:
            os.unlink(result_file)
    return _graded


def catching_checks(sample: dict) -> list[tuple[str, bool]]:
    """(check, hidden) for every check a graded sample failed, public ones first."""
    failed = [(t["tags"][2], t["tags"][1] == "hidden") for t in sample["json"]["tests"] if t["status"] == "failed"]
    return sorted(failed, key=lambda c: c[1])


def _both(zh: str, en: str) -> list[nodes.Node]:
    return [lang_inline(zh, zh, lang="zh"), lang_inline(en, en, lang="en")]


def _row(cells: list[list[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


class MistakeTable(SphinxDirective):
    required_arguments = 1

    def run(self):
        exercise = self.arguments[0]
        if exercise not in IDS:
            raise self.error(f"no exercise {exercise!r}")
        found = stems(exercise)
        if not found:
            raise self.error(f"the catalogue has no mistakes for {exercise}")
        for stem in found:
            self.env.note_dependency(str(WRONG / f"{stem}.py"))
        for visibility in ("public", "hidden"):
            self.env.note_dependency(str(grader_output.ROOT / "checks" / visibility / f"test_{exercise}.py"))
        try:
            samples = graded()
        except Exception as e:  # noqa: BLE001
            raise self.error(f"{{mistake-table}} {exercise}: {e}") from e

        table = nodes.table(classes=["mistake-table"])
        ex = BY_ID[exercise]
        table += nodes.title("", "", nodes.literal(exercise, exercise), nodes.Text(" "), *_both(ex.zh, ex.en))
        group = nodes.tgroup(cols=2)
        table += group
        for width in (3, 2):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += _row([_both("错误", "mistake"), _both("抓住它的检查", "checks that catch it")])
        body = nodes.tbody()
        group += body
        for stem in found:
            name = stem.split("__", 1)[1]
            checks = catching_checks(samples[stem])
            if not checks:
                raise self.error(f"{stem} fails no check: the catalogue holds every file to losing points")
            caught = []
            for i, (check, hidden) in enumerate(checks):
                caught += ([nodes.Text(", ")] if i else []) + [nodes.literal(check, check)]
                if hidden:
                    caught += [nodes.Text(" ("), *_both("隐藏", "hidden"), nodes.Text(")")]
            body += _row([[nodes.literal(name, name), nodes.Text(": " + mistake(stem))], caught])
        return [table]


def setup(app):
    app.add_directive("mistake-table", MistakeTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
