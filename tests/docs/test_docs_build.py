"""Both editions of the site build with -W, and the student edition gives nothing away.

Each edition is built once per session (see docs_site.py); the browser tests
use the same student build.
"""

import ast
import html
import re
from pathlib import Path

import pytest
from docs_site import ROOT, built_site

from grader.authoring.regions import solution_regions
from grader.exercises import IDS

TEXT_SUFFIXES = {".html", ".js", ".css", ".txt", ".py", ".json", ".inv"}


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    return built_site("student", tmp_path_factory)


@pytest.fixture(scope="module")
def teacher(tmp_path_factory) -> Path:
    return built_site("teacher", tmp_path_factory)


def site_text(site: Path) -> str:
    """Everything a reader could get from the site, as plain text: tags removed
    (highlighted code is split into spans) and entities decoded."""
    parts = []
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            raw = path.read_text(encoding="utf-8", errors="replace")
            parts.append(html.unescape(re.sub(r"<[^>]+>", "", raw)))
    return "\n".join(parts)


def solution_lines() -> dict[str, list[str]]:
    """Per exercise, the lines of its solution regions long enough to be telling,
    leaving out those that students are given anyway (in the stub's docstrings or
    the public checks' hints)."""
    public = "\n".join(p.read_text(encoding="utf-8") for p in [*(ROOT / "exercises").glob("*.py"), *(ROOT / "checks" / "public").glob("*.py")])
    out = {}
    for ex in IDS:
        source = (ROOT / "solutions" / f"{ex}.py").read_text(encoding="utf-8")
        regions = solution_regions(source)
        assert regions, ex
        lines = [line.strip() for region in regions for line in region.splitlines()]
        out[ex] = [line for line in lines if len(line) >= 24 and line not in public]
        assert out[ex], f"{ex}: nothing left to look for"
    return out


def hidden_checks() -> dict[str, str]:
    """Hidden check function name -> the first line of its docstring (None where
    a public check has the same one), for the names that are not also public."""
    public, hidden = set(), {}
    for visibility in ("public", "hidden"):
        for path in (ROOT / "checks" / visibility).glob("test_*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    if visibility == "public":
                        public.add(node.name)
                        public.add(ast.get_docstring(node).splitlines()[0])
                    else:
                        hidden[node.name] = ast.get_docstring(node).splitlines()[0]
    return {name: (doc if doc not in public else None) for name, doc in hidden.items() if name not in public}


def test_student_site_has_no_solution(student):
    text = site_text(student)
    leaks = [(ex, line) for ex, lines in solution_lines().items() for line in lines if line in text]
    assert not leaks, f"solution code in the student site: {leaks}"


def test_teacher_site_has_the_solutions(teacher):
    """The same search finds them where they belong: it can fail."""
    text = site_text(teacher)
    missing = [(ex, line) for ex, lines in solution_lines().items() for line in lines if line not in text]
    assert not missing, missing


def test_student_site_has_no_hidden_checks(student):
    text = site_text(student)
    leaks = [name for name, doc in hidden_checks().items() if name in text or (doc and doc in text)]
    assert not leaks, f"hidden checks named in the student site: {leaks}"


def test_teacher_site_lists_the_hidden_checks(teacher):
    text = site_text(teacher)
    missing = [name for name in hidden_checks() if name not in text]
    assert not missing, missing
    assert (teacher / "answers" / "ex4_masking.html").is_file()


def test_student_site_has_no_teacher_pages_or_sources(student):
    assert not (student / "answers").exists()
    assert not any((student / "_sources").rglob("*.*")), "page sources are copied into the site"
    assert "answers/" not in (student / "searchindex.js").read_text(encoding="utf-8")


def test_downloads_are_the_stubs_and_the_experiments(student):
    downloads = {p.name: p for p in (student / "_downloads").rglob("*.py")}
    expected = {f"exercises/{ex}.py" for ex in IDS} | {f"experiments/{ex}_experiment.py" for ex in IDS}
    assert set(downloads) == {Path(e).name for e in expected}
    for path in expected:
        assert downloads[Path(path).name].read_bytes() == (ROOT / path).read_bytes(), path


def test_nothing_is_loaded_from_outside(student):
    """Offline: no scripts, styles, fonts or images from another host."""
    for path in student.rglob("*"):
        if path.suffix == ".html":
            page = path.read_text(encoding="utf-8")
            external = re.findall(r"<(?:script|link|img|iframe)\b[^>]*(?:src|href)=\"(?:https?:)?//[^\"]+\"", page)
            assert not external, (path.name, external)
        if path.suffix == ".css":
            css = path.read_text(encoding="utf-8")
            assert not re.search(r"@import|url\(\s*['\"]?(?:https?:)?//", css), path.name


def test_every_exercise_page_is_complete(student):
    for ex in IDS:
        page = (student / "path" / f"{ex}.html").read_text(encoding="utf-8")
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert f'id="{ex.replace("_", "-")}"' in page or f'id="{ex}"' in page, f"{ex}: no page label"
        assert "<img" in page, f"{ex}: no figure"
        assert "reference download" in page, f"{ex}: no stub download"
        assert f"tox -e grade -- --only {ex}" in text, f"{ex}: no command for its checks"
        assert "grader-output" in page, f"{ex}: no grader feedback"
        assert "check-list" in page, f"{ex}: no list of checks"
