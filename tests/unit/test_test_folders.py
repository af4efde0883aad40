"""The tests' folders are their kinds (``conftest.py``): every test file
sits in one of them, its folder is its marker, tox.ini registers exactly
those markers, and what is slow by nature (building the docs, driving the
browser) stays out of ``unit/``, which ``tox -e unit`` runs in under a
minute."""

import configparser
from pathlib import Path

import pytest
from conftest import FOLDERS, ROOT, group_of, marker_of

TESTS = Path(ROOT, "tests")


def test_every_test_file_is_in_a_folder_of_its_kind():
    files = sorted(TESTS.rglob("test_*.py"))
    outside = [str(p.relative_to(TESTS)) for p in files if p.parent.parent != TESTS or p.parent.name not in FOLDERS]
    # the catalogues hold submissions, not tests
    outside = [p for p in outside if not p.startswith(("catalogue/", "attacks/", "across_gradings/"))]
    assert not outside, outside
    assert {p.parent.name for p in files if p.parent.parent == TESTS} == set(FOLDERS)
    assert not list((TESTS / "support").glob("test_*.py")) and not list(TESTS.glob("test_*.py"))


def test_a_test_outside_the_folders_is_refused():
    assert marker_of(TESTS / "teacher" / "test_lms.py") == "teacher"
    for path in (TESTS / "test_loose.py", TESTS / "support" / "test_helper.py", TESTS / "teacher" / "more" / "test_deep.py"):
        with pytest.raises(pytest.UsageError, match="a test lives in one of"):
            marker_of(path)


def test_tox_registers_the_folders_as_markers_and_nothing_else():
    ini = configparser.ConfigParser()
    ini.read(ROOT + "/tox.ini", encoding="utf-8")
    registered = [line.split(":")[0].strip() for line in ini["pytest"]["markers"].strip().splitlines()]
    assert sorted(registered) == sorted(FOLDERS)


def _uses(text: str) -> set[str]:
    found = set()
    if "built_site(" in text:
        found.add("the docs build")
    if "CHROMIUM" in text or "sync_playwright" in text:
        found.add("the browser")
    return found


def test_nothing_slow_by_nature_is_a_unit_test():
    slow = {p.name: _uses(p.read_text(encoding="utf-8")) for p in (TESTS / "unit").glob("test_*.py") if p.name != Path(__file__).name}
    assert not {name: uses for name, uses in slow.items() if uses}


def test_files_that_share_the_docs_build_run_in_one_process():
    """Under ``-n`` each process builds the docs it needs once: every file
    that uses the built site is in the one group, and no other file is."""
    files = [p for p in TESTS.glob("*/test_*.py") if p.parent.name in FOLDERS and p.name != Path(__file__).name]
    groups = {p.name: group_of(p) for p in files}
    assert {name for name, group in groups.items() if group == "docs-site"} == {p.name for p in files if "the docs build" in _uses(p.read_text(encoding="utf-8"))} != set()
    assert groups["test_attacks.py"] == "test_attacks.py"
