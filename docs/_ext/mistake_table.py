"""The catalogue's mistakes for one exercise, with the public checks that catch each.

``{mistake-table} ex4_masking`` is a table with a row per file
``tests/catalogue/wrong/ex4_masking__<mistake>.py``: the mistake (the file's
name and the first line of its docstring) and the public checks it fails,
found by grading it the way ``{grader-output}`` grades its samples
(``grader_output.py``: a student's copy, public checks only). A mistake that
no public check catches says so: only the hidden checks take its points
(tests/test_catalogue.py holds every catalogue file to losing points).

All the catalogue files are graded in one run of grader_output's
subprocess, together with the pages' own samples, which then come from
its cache.
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
DOCS = grader_output.ROOT / "docs"


def stems(exercise: str | None = None) -> list[str]:
    """The catalogue's mistakes (file stems), of one exercise or of all."""
    return sorted(p.stem for p in WRONG.glob("*.py") if exercise is None or p.stem.split("__")[0] == exercise)


def mistake(stem: str) -> str:
    """The first line of the file's docstring, without its "ex4 mistake: " prefix."""
    doc = ast.get_docstring(ast.parse((WRONG / f"{stem}.py").read_text(encoding="utf-8"))) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else stem
    head, sep, rest = first.partition(" mistake: ")
    return rest if sep and " " not in head else first


def graded(srcdir: Path = DOCS) -> dict:
    """Every catalogue file graded, in grader_output's cache (spec -> sample); the
    pages of ``srcdir`` name the samples graded in the same run."""
    missing = [s for s in stems() if s not in grader_output._cache]
    if missing:
        # grader_output._graded starts one run per spec it has not seen; here one run does them all.
        specs = sorted(set(grader_output.specs_in(srcdir)) | set(missing))
        fd, result_file = tempfile.mkstemp(prefix="docs-mistakes-", suffix=".json")
        os.close(fd)
        try:
            proc = subprocess.run(
                [sys.executable, grader_output.__file__, result_file, *specs],
                cwd=grader_output.ROOT, capture_output=True, text=True, timeout=900,
                env={**os.environ, "PYTHONPATH": os.pathsep.join([str(grader_output.ROOT), os.environ.get("PYTHONPATH", "")])},
            )
            if proc.returncode != 0:
                raise RuntimeError(f"grading the catalogue failed:\n{proc.stderr[-3000:]}")
            grader_output._cache.update(json.loads(Path(result_file).read_text(encoding="utf-8")))
        finally:
            os.unlink(result_file)
    return grader_output._cache


def catching_checks(sample: dict) -> list[str]:
    """The public checks a graded sample failed, in the grader's order."""
    return [t["tags"][2] for t in sample["json"]["tests"] if t["status"] == "failed"]


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
        self.env.note_dependency(str(grader_output.ROOT / "checks" / "public" / f"test_{exercise}.py"))
        try:
            samples = graded(Path(self.env.srcdir))
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
        head += _row([_both("错误", "mistake"), _both("抓住它的公开检查", "public checks that catch it")])
        body = nodes.tbody()
        group += body
        for stem in found:
            name = stem.split("__", 1)[1]
            checks = catching_checks(samples[stem])
            if checks:
                caught = []
                for i, check in enumerate(checks):
                    caught += ([nodes.Text(", ")] if i else []) + [nodes.literal(check, check)]
            else:
                caught = _both("没有：只有隐藏检查扣分", "none: only the hidden checks take points")
            body += _row([[nodes.literal(name, name), nodes.Text(": " + mistake(stem))], caught])
        return [table]


def setup(app):
    app.add_directive("mistake-table", MistakeTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
