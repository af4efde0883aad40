"""The project's own tests: how they are laid out, and the helpers many share.

A test's folder says what it is, and is its marker (``-m teacher``; tox.ini
registers them): ``unit/`` runs in seconds without a grading process (``tox
-e unit``, under a minute); ``grading/`` grades the catalogues, the mutants
and the checks' own promises; ``sandbox/`` confines submission code, and
attacks it; ``student/`` runs what a student runs (grade, check(), the lab,
write); ``teacher/`` runs the teacher's tools; ``docs/`` builds the site and
drives it in a browser. ``support/`` holds the helpers the tests import;
``catalogue/``, ``attacks/`` and ``across_gradings/`` hold submissions.

Below: build a submission folder from the solutions with some files
replaced, and read what grading it gave."""

import json
import os
import shutil
import subprocess
import sys
import threading
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
FOLDERS = ("unit", "grading", "sandbox", "student", "teacher", "docs")  # each is its tests' marker
SOLUTIONS = os.path.join(ROOT, "solutions")
EXERCISES = os.path.join(ROOT, "exercises")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(TESTS, "support"))  # the helpers: import docs_site, import_rules, ...
# A few tests reuse another file's data or helpers (test_batch's, say), whichever folder is run.
sys.path[1:1] = [os.path.join(TESTS, folder) for folder in FOLDERS]

from grader.exercises import IDS  # noqa: E402 - after the sys.path line above

BACKGROUND_LAST = "test_attacks.py"  # graded in the background from the start, its tests run last


def pytest_collection_modifyitems(config, items) -> None:
    """Each test gets its folder as its marker, and under pytest-xdist its
    group (``group_of``); the attack catalogue's tests go last, as its
    gradings run in the background meanwhile (``pytest_collection_finish``).
    Among the docs' files, those that wait for no build of the site come
    first, then those that wait for the student's, then the teacher's
    (``docs_site.waits_for``): the builds run in the background meanwhile."""
    import docs_site

    waits: dict = {}
    folders: dict = {}  # in the order collected
    for item in items:
        folders.setdefault(item.path.parent, len(folders))

    def rank(item) -> tuple:
        if item.path not in waits:
            waits[item.path] = docs_site.waits_for(item.path) if item.path.parent.name == "docs" else 0
        return (item.path.name == BACKGROUND_LAST, folders[item.path.parent], waits[item.path])

    items.sort(key=rank)  # stable: every other order is kept
    groups = {}
    xdist = config.pluginmanager.hasplugin("xdist")  # not installed by tox: see SHARED_BUILDS
    for item in items:
        item.add_marker(getattr(pytest.mark, marker_of(item.path)))
        if xdist:
            if item.path not in groups:
                groups[item.path] = group_of(item.path)
            item.add_marker(pytest.mark.xdist_group(groups[item.path]))


def marker_of(path) -> str:
    """A test file's marker: its folder, which must be one of FOLDERS."""
    folder = path.parent.name
    if path.parent.parent.name != "tests" or folder not in FOLDERS:
        raise pytest.UsageError(f"{path}: a test lives in one of tests/{{{','.join(FOLDERS)}}}/, which is its marker")
    return folder


# Under pytest-xdist (``-n 2 --dist loadgroup``) a whole file goes to one
# process, so its module fixtures (the attack catalogue's gradings, a
# batch) are made once, and files that share a build made once per process
# (the docs site, see ``docs_site.built_site``) go to one process as a
# group. tox does not install xdist: on the 2-core machine CI uses, two
# pytest processes took as long as one (bench/suite_cpu.py); one process
# gives the other processor to its background work instead (the builds, the
# attack catalogue, the fixtures made early: ``pytest_collection_finish``).
SHARED_BUILDS = {"built_site(": "docs-site"}


def group_of(path) -> str:
    """The xdist group of a test file (a ``pathlib.Path``): the build it shares, else its own name."""
    text = path.read_text(encoding="utf-8")
    for call, group in SHARED_BUILDS.items():
        if call in text:
            return group
    return path.name


def pytest_collection_finish(session) -> None:
    """The docs builds the selected tests need start now, in the background
    (``docs_site``); under pytest-xdist, in the process that gets the docs'
    tests, when the first of them asks. Once they have ended, so does the
    grading of the attack catalogue's selected cases
    (``test_attacks.start_in_background``; not under xdist), whose tests run
    last, and after it the fixtures that files make early (``EARLY``,
    tests/support/early.py; not under xdist). The docs' tests come first and
    wait for the builds: till those end, the builds have the processors
    the tests leave them."""
    import docs_site

    if session.config.option.collectonly:
        return
    tmp_root = session.config._tmp_path_factory.getbasetemp()
    if hasattr(session.config, "workerinput"):
        docs_site.defer_builds(session.items, tmp_root)
        return
    docs_site.start_builds(session.items, tmp_root)
    if session.config.pluginmanager.hasplugin("xdist"):
        return
    attacks = sys.modules.get("test_attacks")
    if attacks is not None:
        attacks.start_in_background(session.items, str(session.config._tmp_path_factory.mktemp("attacks")), after=docs_site.wait_for_builds)
    # The files' fixtures made early (tests/support/early.py), once the
    # catalogue is graded: then a processor is idle.
    from early import Early

    selected = {item.module for item in session.items if isinstance(getattr(item, "module", None), types.ModuleType)}
    for module in sorted(selected, key=lambda m: m.__name__):
        if isinstance(getattr(module, "EARLY", None), Early):
            module.EARLY.start(tmp_root / f"early-{module.__name__}", after=attacks.wait_in_background if attacks is not None else lambda: None)


def pytest_sessionfinish(session) -> None:
    import docs_site

    docs_site.stop_builds()
    attacks = sys.modules.get("test_attacks")
    if attacks is not None:
        attacks.stop_background()  # selected but never asked for (the run was cut short)
    import background_share

    background_share.remove_group()


def ctrl_c_as_in_a_terminal() -> None:
    """A ``preexec_fn`` for a program a test sends SIGINT: a shell starts its
    background jobs with SIGINT ignored, and Python then leaves it ignored, so
    under such a runner the program would never see the test's Ctrl-C."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def make_submission(folder, replace: dict | None = None, base: str = SOLUTIONS) -> str:
    """A copy of ``base`` (the solutions by default) with the files in
    ``replace`` (exercise id -> source text) written over it."""
    folder = str(folder)
    os.makedirs(folder, exist_ok=True)
    for ex in IDS:
        shutil.copy(os.path.join(base, ex + ".py"), os.path.join(folder, ex + ".py"))
    for ex, source in (replace or {}).items():
        with open(os.path.join(folder, ex + ".py"), "w", encoding="utf-8") as f:
            f.write(source)
    return folder


def points_by_exercise(results: dict) -> dict:
    out = {ex: 0.0 for ex in IDS}
    for test in results["tests"]:
        out[test["tags"][0]] += test["score"]
    return out


# --- processes a grader leaves -------------------------------------------------


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``."""
    found, todo = [], [pid]
    while todo:
        for child in _children_of(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def below_the_zygote(server: int) -> list[int]:
    """The processes under a grader's zygote, given the grader's pid (a warm
    grader's, say): none should be left once a grading is over. The zygote
    is the grader's child (a fork of it) or, in the sandbox, the first
    process below bubblewrap's."""
    left, todo = [], _children_of(server)
    while todo:
        pid = todo.pop()
        if _is_bwrap(pid):
            todo += _children_of(pid)
        else:
            left += descendants(pid)
    return left


def _is_bwrap(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return os.path.basename(f.read().split(b"\0")[0]) == b"bwrap"
    except OSError:
        return False


def _children_of(pid: int) -> list[int]:
    from grader.child.limits import children_of

    return children_of(pid)


def failed_checks(results: dict, exercise: str) -> set:
    return {t["tags"][2] + ("[hidden]" if t["tags"][1] == "hidden" else "") for t in results["tests"] if t["tags"][0] == exercise and t["status"] == "failed"}


_starters: dict = {}  # "tests" or "background": a warm_start.WarmStarter, made on first use, closed when the session ends
_starter_lock = threading.Lock()
# What the session's warm interpreter imports beside torch: nbgrader's
# commands (its apps, gradebook and converters: a second of each command's
# start) are the programs the tests start most after the grader's own.
SESSION_PRELOAD = ("nbgrader.apps",)


def python_m_grader(args, *, cwd, env: dict, timeout: float = 600, module: str = "grader") -> subprocess.CompletedProcess:
    """``python -m grader ARGS`` (or ``-m MODULE``) as ``subprocess.run(..., capture_output=True,
    text=True)`` runs it, but forked from one warm interpreter of the
    session's that has imported torch (``tests/support/warm_start.py``): the same
    command line, folder, environment and streams, without two seconds of
    torch's import for the command (and, for a batch, for each of its
    workers). A program that must be seen as ``python -m grader`` in /proc,
    or that a test signals, is started with subprocess instead."""
    import background_share

    # The background's programs (a fixture made early: tests/support/early.py)
    # come from an interpreter of its own, which is in its group.
    which = "background" if background_share.lowered() else "tests"
    with _starter_lock:
        if which not in _starters:
            from warm_start import WarmStarter

            _starters[which] = WarmStarter(preload=SESSION_PRELOAD)
    return _starters[which].run([str(a) for a in args], cwd=str(cwd), env=env, timeout=timeout, module=module)


def pytest_unconfigure(config) -> None:
    for starter in _starters.values():
        starter.close()


def run_cli(*args, timeout: float = 600, cwd: str = ROOT) -> subprocess.CompletedProcess:
    return python_m_grader(args, cwd=cwd, env={**os.environ, "PYTHONPATH": ROOT}, timeout=timeout)


def grade_cli(folder, *extra) -> tuple[dict, subprocess.CompletedProcess]:
    """Grade ``folder`` the way a student does, as a separate process."""
    out = os.path.join(str(folder) + "-results.json")
    proc = run_cli("grade", str(folder), "--json", out, *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out, encoding="utf-8") as f:
        return json.load(f), proc


@pytest.fixture(scope="session")
def full_marks(grader) -> dict:
    """Max points per exercise, from grading the solutions once."""
    grade = grader.grade(SOLUTIONS)
    return {ex: grade.exercise_points(ex)[1] for ex in IDS}


# The project's tests grade with unseen inputs, as a teacher's grading does,
# but always the same ones, so that a failure can be repeated.
# tests/grading/test_catalogue.py also grades the right catalogue with fresh ones.
TEST_INPUTS_SEED = 20261130


@pytest.fixture(scope="session")
def grader():
    """One grader process for many submissions (as batch grading uses it)."""
    from grader.engine.grading import Grader

    g = Grader(many=True, inputs_seed=TEST_INPUTS_SEED)
    yield g
    g.close()


def as_results(grade) -> dict:
    from grader.student import report

    return report.results_json(grade)


# --- the two editions a student starts from -----------------------------------


@pytest.fixture(scope="session")
def fresh_clone(tmp_path_factory):
    """The project's tracked files, as they are now, as a clone has them.
    Shared by the tests of the session: copy it before changing anything."""
    return copy_tracked(tmp_path_factory.mktemp("clone") / "course")


def copy_tracked(out):
    """Copy the project's tracked files, as they are now, into ``out`` (a
    ``pathlib.Path``), as a clone has them; skips the test outside a git checkout."""
    from pathlib import Path

    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no way to tell a clone's files")
    for rel in filter(None, listed.stdout.split("\0")):
        src = Path(ROOT, rel)
        if src.is_file():  # a tracked file deleted in the working tree is not in the copy either
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out / rel)
    return out


@pytest.fixture(scope="session")
def student_edition(tmp_path_factory):
    """``python -m grader release``'s folder, built once for the session.
    Shared by the tests of the session: copy it before changing anything."""
    out = tmp_path_factory.mktemp("release") / "attention"
    out.mkdir()  # an empty folder may be built into
    proc = run_cli("release", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out
