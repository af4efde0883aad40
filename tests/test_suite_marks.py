"""tests/suite_marks.py stays true: it names files that exist and markers
tox.ini registers, and every file that builds the docs or drives the
browser is marked so (else ``tox -e test-fast`` would run it)."""
import configparser
from pathlib import Path

import suite_marks

TESTS = Path(__file__).resolve().parent


def _uses(text: str) -> set[str]:
    found = set()
    if "built_site(" in text:
        found.add("docs")
    if "CHROMIUM" in text or "sync_playwright" in text:
        found.add("browser")
    return found


def unmarked() -> list[str]:
    problems = []
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        missing = _uses(path.read_text(encoding="utf-8")) - set(suite_marks.marks_of(path.name))
        if missing:
            problems.append(f"{path.name}: not marked {sorted(missing)}")
    return problems


def test_the_table_names_files_and_markers_that_exist():
    assert not [f for f in suite_marks.MARKS if not (TESTS / f).is_file()]
    ini = configparser.ConfigParser()
    ini.read(TESTS.parent / "tox.ini", encoding="utf-8")
    registered = {line.split(":")[0].strip() for line in ini["pytest"]["markers"].strip().splitlines()}
    assert {m for marks in suite_marks.MARKS.values() for m in marks} <= registered == set(suite_marks.KNOWN)


def test_files_that_build_the_docs_or_drive_the_browser_say_so():
    assert unmarked() == []


def test_an_unmarked_docs_file_is_found(monkeypatch):
    monkeypatch.setitem(suite_marks.MARKS, "test_docs_build.py", ())
    assert unmarked() == ["test_docs_build.py: not marked ['docs']"]


def test_files_that_share_the_docs_build_run_in_one_process():
    """Under ``-n`` each process builds the docs it needs once: every file
    that uses the built site is in the one group, and no other file is."""
    groups = {path.name: suite_marks.group_of(path) for path in TESTS.glob("test_*.py") if path.name != Path(__file__).name}
    assert {name for name, group in groups.items() if group == "docs-site"} == {
        name for name in groups if "docs" in _uses((TESTS / name).read_text(encoding="utf-8"))
    } != set()
    assert groups["test_attacks.py"] == "test_attacks.py"
