"""What the grader prints, produced by running the grader at build time.

``{grader-output} ex4_masking__filled_with_zero`` shows the terminal report for
the solutions with one file replaced by a mistake from the project's catalogue
(``tests/catalogue/wrong/``), graded the way a student's copy grades it: public
checks only, hidden points shown as ``(+n)``. Tokens, comma-separated:

- ``<exercise>__<mistake>``: that catalogue file in place of its exercise
  (from ``tests/catalogue/wrong/``, or else ``tests/catalogue/uncaught/``);
- ``stub:<exercise>``: the untouched stub from ``exercises/``;
- ``all``: grade every exercise (otherwise only the ones replaced).

Option ``:show: json`` shows the results.json instead of the terminal report.

``{public-checks-catch} STEM STEM ...`` shows nothing: it fails the build
unless each of those catalogue mistakes loses points on the public checks, so
a page's list of mistakes the checks catch stays true.

All samples of a build are graded by one grader in one subprocess (the grader
forks, which is no business of Sphinx's process), started by the first use,
once for all the build's reading processes (build_cache).
"""

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import build_cache
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
WRONG = ROOT / "tests" / "catalogue" / "wrong"
UNCAUGHT = ROOT / "tests" / "catalogue" / "uncaught"  # mistakes no check catches (the teaching page lists them)
SPEC_IN_SOURCE = re.compile(r"\{(?:grader-output|public-checks-catch)\}[ \t]+([^\n]+)")

_cache: dict[str, dict] = {}


def specs_in(srcdir: Path) -> list[str]:
    found = set()
    for path in srcdir.rglob("*.md"):
        if "_build" not in path.parts:
            for specs in SPEC_IN_SOURCE.findall(path.read_text(encoding="utf-8")):
                found.update(specs.split())
    return sorted(found)


def _graded(srcdir: Path, spec: str) -> dict:
    if spec not in _cache:
        _cache.update(graded_samples(sorted(set(specs_in(srcdir)) | {spec})))
    return _cache[spec]


def graded_samples(specs: list[str], options: tuple[str, ...] = ()) -> dict:
    """Spec -> its grading, by this file run as a script (``options``, e.g.
    ``--all-checks``, before the specs): once for the build's processes and
    the tests' two builds (build_cache)."""
    args = [*options, *specs]
    key = "samples-" + hashlib.sha256("\0".join(args).encode()).hexdigest()[:16]
    return build_cache.json_once(key, lambda: _run_samples(specs, options))


def _run_samples(specs: list[str], options: tuple[str, ...]) -> dict:
    fd, result_file = tempfile.mkstemp(prefix="docs-grader-", suffix=".json")
    os.close(fd)
    try:
        proc = subprocess.run(
            [sys.executable, __file__, *options, result_file, *specs],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
        )
        if proc.returncode != 0:
            raise RuntimeError(f"grading the samples failed:\n{proc.stderr[-3000:]}")
        return json.loads(Path(result_file).read_text(encoding="utf-8"))
    finally:
        os.unlink(result_file)


class GraderOutput(SphinxDirective):
    required_arguments = 1
    option_spec = {"show": lambda s: directives.choice(s, ("terminal", "json"))}

    def run(self):
        spec = self.arguments[0]
        try:
            sample = _graded(Path(self.env.srcdir), spec)
        except Exception as e:  # noqa: BLE001 - said as the directive's error, naming the sample
            raise self.error(f"{{grader-output}} {spec}: {e}") from e
        for stem in _mistakes(spec):
            self.env.note_dependency(str(WRONG / f"{stem}.py"))
        if _mistakes(spec) and sample["score"] >= sample["max_score"]:
            logger.warning("{grader-output} %s: the mistake loses no points on the public checks", spec, location=self.get_location())
        if self.options.get("show") == "json":
            text = json.dumps(sample["json"], ensure_ascii=False, indent=2)
            block = nodes.literal_block(text, text, language="json", classes=["grader-output"])
        else:
            block = terminal_report(sample["terminal"], nodes.Text(sample["terminal"]))
        self.set_source_info(block)
        return [block]


class terminal_report(nodes.General, nodes.TextElement):
    """The grader's terminal report, as a terminal shows it."""


def _columns(char: str) -> int:
    from grader.student.report import width

    return width(char)


def visit_terminal_report_html(self, node):
    """The report lines up its columns counting a CJK character as two
    columns, as terminals do. Browsers draw CJK (and ✓ ✗ ─ from fallback
    fonts) at whatever width the font has, so the table and the indented
    lines slid by a column. Every non-ASCII character is put in a box exactly
    as wide as the terminal makes it (1ch or 2ch)."""
    parts = []
    for char in node.astext():
        escaped = html.escape(char)
        if char.isascii():
            parts.append(escaped)
        else:
            parts.append(f'<span class="col{_columns(char)}">{escaped}</span>')
    self.body.append('<div class="grader-output highlight-text notranslate"><div class="highlight"><pre>')
    self.body.append("".join(parts))
    self.body.append("</pre></div></div>\n")
    raise nodes.SkipNode


def visit_terminal_report_other(self, node):
    raise nodes.SkipNode


class PublicChecksCatch(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        for stem in self.arguments[0].split():
            self.env.note_dependency(str(WRONG / f"{stem}.py"))
            try:
                sample = _graded(Path(self.env.srcdir), stem)
            except Exception as e:  # noqa: BLE001 - said as the directive's error, naming the mistake
                raise self.error(f"{{public-checks-catch}} {stem}: {e}") from e
            if sample["score"] >= sample["max_score"]:
                logger.warning("%s loses no points on the public checks, but the page says they catch it", stem, location=self.get_location())
        return []


def _mistakes(spec: str) -> list[str]:
    return [t for t in spec.split(",") if "__" in t]


# --- the subprocess ----------------------------------------------------------


def student_checks(into: Path) -> Path:
    """The checks as a student's copy has them: public ones and the hidden
    points, which the release takes from grader/exercises.py too."""
    from grader.exercises import EXERCISES

    checks = into / "checks"
    shutil.copytree(ROOT / "checks" / "public", checks / "public")
    shutil.copy(ROOT / "checks" / "pytest.ini", checks / "pytest.ini")
    hidden = {e.id: e.hidden for e in EXERCISES}
    (checks / "hidden_points.json").write_text(json.dumps(hidden), encoding="utf-8")
    return checks


def submission(spec: str, into: Path) -> tuple[Path, str | None]:
    """The solutions with the spec's replacements; and the one exercise to grade, if not all."""
    from grader.exercises import IDS

    folder = into / re.sub(r"\W", "_", spec)
    folder.mkdir()
    for ex in IDS:
        shutil.copy(ROOT / "solutions" / f"{ex}.py", folder / f"{ex}.py")
    replaced = []
    for token in spec.split(","):
        if token == "all":
            continue
        if token.startswith("stub:"):
            ex, source = token[5:], ROOT / "exercises" / f"{token[5:]}.py"
        else:
            ex, source = token.split("__")[0], WRONG / f"{token}.py"
            if not source.is_file() and (UNCAUGHT / f"{token}.py").is_file():
                source = UNCAUGHT / f"{token}.py"
        if ex not in IDS or not source.is_file():
            raise SystemExit(f"unknown sample token {token!r} ({source} does not exist)")
        shutil.copy(source, folder / f"{ex}.py")
        replaced.append(ex)
    only = None if "all" in spec.split(",") or len(set(replaced)) != 1 else replaced[0]
    return folder, only


def main(result_file: str, specs: list[str], all_checks: bool = False) -> None:
    """Grade each spec into ``result_file``: with a student's copy of the
    checks, or with ``all_checks`` the teacher's (hidden ones included)."""
    from grader.engine.grading import Grader, Job
    from grader.student import report

    out = {}
    with tempfile.TemporaryDirectory(prefix="docs-grader-") as tmp:
        checks = ROOT / "checks" if all_checks else student_checks(Path(tmp))
        # The samples run the project's own catalogue: no sandbox needed, and none to depend on.
        grader = Grader(checks_dir=str(checks), sandbox="off", inputs_seed=0)  # the inputs as written: the page shows the same numbers every build
        by_only: dict = {}  # the samples of one exercise (or of all) are graded in one pytest session, as a batch grades
        for spec in specs:
            folder, only = submission(spec, Path(tmp))
            by_only.setdefault(only, []).append(Job(str(folder), "exercises", key=spec))

        def keep(job, grade) -> None:
            if isinstance(grade, BaseException):
                raise grade
            if grade.errors:
                raise SystemExit(f"{job.key}: grader error: {grade.errors}")
            out[job.key] = {
                "terminal": report.terminal(grade),
                "json": report.results_json(grade),
                "score": grade.score,
                "max_score": grade.max_score,
            }

        try:
            for only, jobs in by_only.items():
                grader.grade_each(jobs, keep, only=only)
        finally:
            grader.close()
    Path(result_file).write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")


def setup(app):
    app.add_node(
        terminal_report,
        html=(visit_terminal_report_html, None),
        latex=(visit_terminal_report_other, None),
        text=(visit_terminal_report_other, None),
        man=(visit_terminal_report_other, None),
        texinfo=(visit_terminal_report_other, None),
    )
    app.add_directive("grader-output", GraderOutput)
    app.add_directive("public-checks-catch", PublicChecksCatch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    # python grader_output.py [--all-checks] RESULT_FILE SPEC...
    teacher = sys.argv[1] == "--all-checks"
    args = sys.argv[2:] if teacher else sys.argv[1:]
    main(args[0], args[1:], all_checks=teacher)
