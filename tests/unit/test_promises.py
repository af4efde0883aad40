"""Every hidden check tests a promise the student was given.

``checks/promises.py`` has an entry for every check in ``checks/hidden/``
(and none for a check that is not there): the sentence of the exercise
file's docstrings that promises what the check tests, quoted in Chinese and
English, and the public checks that teach the same rule. Here:

- the entries and the hidden checks are the same set, exercise by exercise:
  a hidden check added, renamed or removed fails until its entry follows;
- every quoted sentence is in the docstring it names, in the stub the
  student gets (``exercises/``; white space aside, as lines wrap);
- every public check named exists;
- the teachers' guide shows the table for every exercise, in the teacher
  edition only.
"""

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from grader.exercises import IDS

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "checks"
CJK = re.compile(r"[\u3400-\u9fff]")


def load_promises():
    spec = importlib.util.spec_from_file_location("course_promises", CHECKS / "promises.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROMISES = load_promises()


def check_names(visibility: str, exercise: str) -> list[str]:
    path = CHECKS / visibility / f"test_{exercise}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def disagreements(checks: dict[str, list[str]], entries: dict[str, dict]) -> list[str]:
    """What differs between the hidden checks (exercise -> names) and the table's entries."""
    problems = []
    for ex in sorted(set(checks) | set(entries)):
        have, listed = set(checks.get(ex, [])), set(entries.get(ex, {}))
        problems += [f"{ex}: hidden check {name} has no entry in checks/promises.py" for name in sorted(have - listed)]
        problems += [f"{ex}: checks/promises.py lists {name}, which is no hidden check" for name in sorted(listed - have)]
    return problems


HIDDEN = {ex: check_names("hidden", ex) for ex in IDS}


def docstring(exercise: str, where: str) -> str:
    """The docstring of ``where`` ("" the module, "f", "Class" or "Class.method") in the stub."""
    node = ast.parse((ROOT / "exercises" / f"{exercise}.py").read_text(encoding="utf-8"))
    for name in where.split(".") if where else []:
        found = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name]
        assert found, f"exercises/{exercise}.py has no {where}"
        node = found[0]
    doc = ast.get_docstring(node)
    assert doc, f"exercises/{exercise}.py: {where or 'the module'} has no docstring"
    return doc


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_hidden_check_has_an_entry():
    assert sum(len(v) for v in HIDDEN.values()) >= 40
    assert set(PROMISES.HIDDEN) <= set(IDS)
    problems = disagreements(HIDDEN, PROMISES.HIDDEN)
    assert not problems, "\n".join(problems)


def test_a_renamed_or_removed_check_is_seen():
    entries = {"ex9": {"test_a": object(), "test_b": object()}}
    assert disagreements({"ex9": ["test_a", "test_b"]}, entries) == []
    assert disagreements({"ex9": ["test_a", "test_c"]}, entries) == [
        "ex9: hidden check test_c has no entry in checks/promises.py",
        "ex9: checks/promises.py lists test_b, which is no hidden check",
    ]
    assert disagreements({"ex9": ["test_a"]}, entries) == ["ex9: checks/promises.py lists test_b, which is no hidden check"]


@pytest.mark.parametrize("exercise, check", [(ex, c) for ex in IDS for c in HIDDEN[ex]], ids=lambda v: v)
def test_the_promise_is_in_the_stub(exercise, check):
    entry = PROMISES.HIDDEN.get(exercise, {}).get(check)
    assert entry is not None, f"{exercise}: hidden check {check} has no entry in checks/promises.py"
    assert entry.promises, f"{exercise}.{check}: no promise quoted"
    for p in entry.promises:
        doc = squeeze(docstring(exercise, p.where))
        assert p.zh.strip() and p.en.strip()
        if p.zh != p.en:  # a sentence in each language; a formula or code line is the same in both
            assert CJK.search(p.zh), f"{exercise}.{check}: the Chinese quote has no Chinese: {p.zh!r}"
            assert not CJK.search(p.en), f"{exercise}.{check}: the English quote has Chinese: {p.en!r}"
        for quote in {p.zh, p.en}:
            assert squeeze(quote) in doc, f"{exercise}.{check}: {quote!r} is not in the docstring of {p.where or 'the module'} in exercises/{exercise}.py"
    public = check_names("public", exercise)
    for name in entry.public:
        assert name in public, f"{exercise}.{check}: no public check {name} in checks/public/test_{exercise}.py"


def test_the_dtype_rule_is_taught_by_a_public_check():
    """Every hidden check of "float64 in, float64 out" names the public check that tests it in the student's own run."""
    found = 0
    for ex in IDS:
        for check, entry in PROMISES.HIDDEN.get(ex, {}).items():
            if "float64" in check:
                found += 1
                assert entry.public, f"{ex}.{check}: no public check teaches the dtype rule"
    assert found >= 7


def test_the_teachers_guide_shows_the_table():
    page = (ROOT / "docs" / "teachers" / "promises.md").read_text(encoding="utf-8")
    for ex in IDS:
        assert f"```{{promise-table}} {ex}\n```" in page, ex
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert '"promise_table"' in conf
    assert 'exclude_patterns.append("teachers/promises.md")' in conf  # hidden check names stay out of the student site
    index = (ROOT / "docs" / "teachers" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"```\{teacher-toctree\}[^`]*\bpromises\b", index)
