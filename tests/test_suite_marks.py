"""tests/suite_marks.py stays true: it names files that exist and markers
tox.ini registers, every file that builds the docs shares the docs group
(else each parallel process would build the site again), and every file
that drives the browser or builds the site says so."""
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


def test_the_table_names_files_and_markers_that_exist():
    named = set(suite_marks.MARKS) | {f for files in suite_marks.GROUPS.values() for f in files}
    assert not [f for f in named if not (TESTS / f).is_file()]
    ini = configparser.ConfigParser()
    ini.read(TESTS.parent / "tox.ini", encoding="utf-8")
    registered = {line.split(":")[0].strip() for line in ini["pytest"]["markers"].strip().splitlines()}
    assert {m for marks in suite_marks.MARKS.values() for m in marks} <= registered == set(suite_marks.KNOWN)


def test_files_that_build_the_docs_or_drive_the_browser_say_so():
    problems = []
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        uses = _uses(path.read_text(encoding="utf-8"))
        missing = uses - set(suite_marks.marks_of(path.name))
        if missing:
            problems.append(f"{path.name}: not marked {sorted(missing)}")
        if "docs" in uses and suite_marks.group_of(path.name) != "docs-site":
            problems.append(f"{path.name}: builds the docs but is not in the docs-site group")
    assert not problems, "\n".join(problems)


def test_a_file_that_builds_the_docs_outside_the_group_is_found(monkeypatch):
    monkeypatch.setitem(suite_marks.GROUPS, "docs-site", ("test_docs_build.py",))
    try:
        test_files_that_build_the_docs_or_drive_the_browser_say_so()
    except AssertionError as exc:
        assert "test_docs_browser.py: builds the docs but is not in the docs-site group" in str(exc)
    else:
        raise AssertionError("a docs test outside the group was not found")
