"""The student edition's wheel (docs/teachers/release.md's "The student edition as a wheel"),
its commands run as written: ``release``, then ``pip wheel`` on the release
(``--no-build-isolation``: the test environment has hatchling, tox.ini's
``[wheel] deps``, so nothing is fetched).

The hub's environment it is installed into is a venv outside the course
(``--without-pip``: made in a tenth of a second) whose site-packages holds a
``.pth`` naming this environment's site-packages, and nothing else: pip
(run as that venv's ``python -m pip``, as the page says) finds torch,
numpy, pytest and nbformat there at the pinned versions and installs the
wheel alone, never downloading torch. The venv's own site-packages comes
first on its path, so ``grader`` is the wheel's, never this course's (the
commands run outside it, without ``PYTHONPATH``: a test checks).

Graded with the installed grader: a folder of the solutions scores every
public point, the untouched stubs score none, and ``check()`` in a kernel
grades the notebook of its folder (beside an untouched stub: the wheel's
own stubs tell it from an answer). The wheel holds the student edition's
grader and public checks, no solution and no hidden check
(``release.find_leaks``). tox, which the student edition's tox.ini runs,
builds no package although a ``pyproject.toml`` now lies beside it.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from readme_sections import ROOT, Shell, blocks, commands, page

from grader.exercises import BY_ID, EXERCISES, IDS
from grader.teacher.edition.release import find_leaks
from grader.teacher.edition.student_wheel import NAME, wheel_file

PAGE = page("teachers/release.md")  # the commands are run from the page, as written there
SECTION = "The student edition as a wheel"
SOLUTIONS = ROOT / "solutions"
PUBLIC = sum(e.public for e in EXERCISES)
HIDDEN = sum(e.hidden for e in EXERCISES)


class ImageShell(Shell):
    """A page's commands in the hub's environment ``image`` (a venv):
    ``python`` and ``attention-grader`` are the venv's, ``NAME=value`` words
    before a command are its environment, as a shell reads them."""

    def __init__(self, cwd: Path, image: Path):
        super().__init__(cwd)
        self.image = image

    def run(self, argv: list[str]):
        env = {}
        while argv and re.fullmatch(r"[A-Z_]+=.*", argv[0]):
            name, value = argv[0].split("=", 1)
            env[name] = value
            argv = argv[1:]
        if argv[0] in ("python", NAME):
            return self._run([str(self.image / "bin" / argv[0]), *argv[1:]], **env)
        assert not env, argv
        return super().run(argv)


def section_commands(n: int) -> list[list[str]]:
    """The commands of the section's ``n``-th bash block."""
    return commands(blocks(SECTION, "bash", PAGE)[n])


def release_commands() -> list[list[str]]:
    """The page's first block: ``release``, which the wheel is built from."""
    return commands(blocks("The student release", "bash", PAGE)[0])


@pytest.fixture(scope="module")
def teacher(tmp_path_factory) -> Path:
    """A teacher's folder after the page's release and wheel commands; the wheel in dist/."""
    here = tmp_path_factory.mktemp("teacher")
    shell = Shell(here)
    for argv in release_commands() + section_commands(0):
        shell.run(argv)
    return here


@pytest.fixture(scope="module")
def wheel(teacher) -> Path:
    path = teacher / "dist" / wheel_file()
    assert path.is_file(), sorted(os.listdir(teacher / "dist"))
    return path


@pytest.fixture(scope="module")
def image(teacher, wheel, tmp_path_factory) -> Path:
    """The hub's environment, the page's install commands run in it."""
    venv = tmp_path_factory.mktemp("hub") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "course-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    shell = ImageShell(teacher, venv)
    said = [shell.run(argv) for argv in section_commands(1)]
    assert all(f"Successfully installed {NAME}" in p.stdout or "already satisfied" in p.stdout for p in said)
    assert f"Successfully installed {NAME}-" in said[0].stdout, said[0].stdout[-2000:]
    return venv


def home(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "student"
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def _solution(ex: str) -> str:
    return (SOLUTIONS / f"{ex}.py").read_text(encoding="utf-8")


def test_the_tests_run_every_command_of_the_section():
    """docs/teachers/release.md's wheel section: its three bash blocks (the
    wheel, its installs, the installed command) and its Python block are what
    the fixtures and tests here run, as written; the release they build from
    is the page's first block."""
    assert len(blocks(SECTION, "bash", PAGE)) == 3 and len(blocks(SECTION, "python", PAGE)) == 1
    assert [argv[4:6] for argv in release_commands()] == [["release", "--out"]]
    assert [argv[:2] for argv in section_commands(0)] == [["tox", "exec"]]


# --- what the wheel holds ---------------------------------------------------------


def test_the_wheel_holds_the_student_editions_grader_and_checks_and_nothing_else(teacher, wheel, tmp_path):
    release = teacher / "out" / "attention"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        z.extractall(tmp_path / "wheel")
        (listed,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        entry_points = z.read(listed).decode()
    shipped = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    grader_files = {f for f in shipped if f.startswith("grader/")}
    course = {f"grader/course_files/{f}" for f in shipped if f.startswith(("checks/", "exercises/", "notebooks/"))}
    package = {n for n in names if ".dist-info/" not in n}
    assert package == grader_files | course
    assert {f"grader/course_files/checks/public/test_{ex}.py" for ex in IDS} <= package
    assert "grader/course_files/checks/public/reference_answers.pt" in package
    assert not [n for n in names if "solutions" in n or "hidden/" in n or "teacher/" in n or "__pycache__" in n]
    assert find_leaks(str(tmp_path / "wheel"), ROOT) == []
    assert re.search(rf"^{NAME} = grader\.cli:script$", entry_points, re.M)


def test_the_wheel_requires_tox_inis_pins_and_offers_the_teachers_as_an_extra(wheel):
    from grader.teacher.edition.packaging import tox_base_deps
    from grader.teacher.edition.student_wheel import tox_deps

    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = z.read(meta).decode()
    requires = [Requirement(r) for r in re.findall(r"^Requires-Dist: (.*)$", metadata, re.M)]
    plain = {_same(r) for r in requires if r.marker is None}
    assert plain == {_same(Requirement(d)) for d in tox_base_deps(ROOT)}
    assert any(r.startswith("torch==") for r in plain)
    assert re.search(r"^Provides-Extra: teacher$", metadata, re.M)
    teacher = {_same(r) for r in requires if r.marker is not None and r.marker.evaluate({"extra": "teacher"})}
    assert teacher == {_same(Requirement(d)) for d in tox_deps(ROOT, "teacher")} != set()


def _same(r) -> str:
    """A requirement as two spellings of it compare equal (specifiers sorted), without its marker."""
    return f"{r.name}{'[' + ','.join(sorted(r.extras)) + ']' if r.extras else ''}{r.specifier}"


def test_building_leaves_the_release_as_it_was(teacher):
    """pip builds in place: hatchling writes nothing there (setuptools would leave build/ and an .egg-info)."""
    tops = set(os.listdir(teacher / "out" / "attention"))
    assert tops == {"exercises", "checks", "grader", "experiments", "notebooks", "tox_install", "write", "tox.ini", "README.md", "pyproject.toml"}


# --- the installed grader ---------------------------------------------------------


def test_the_grader_is_the_wheels_and_has_the_students_verbs_only(image, tmp_path):
    where = subprocess.run(
        [str(image / "bin" / "python"), "-c", "import grader.files as f; print(f.PROJECT); print(f.CHECKS)"],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where[0].startswith(str(image)) and where[1] == os.path.join(where[0], "grader", "course_files", "checks")
    said = ImageShell(tmp_path, image).run([NAME, "--help"]).stdout
    assert said.startswith(f"usage: {NAME} ")
    assert re.findall(r"^    (\w+) ", said, re.M) == ["grade", "start"]  # the commands: no batch, no release


@pytest.mark.parametrize("which", ["solutions", "stubs"])
def test_the_readmes_console_script_grades_a_folder(image, teacher, tmp_path, which):
    """``attention-grader start`` then ``grade exercises`` as written: the
    stubs and notebooks written out, the release's own; every public point
    for the solutions written over them, none for the untouched stubs; the
    hidden points said to be the teacher's. A second ``start`` changes nothing."""
    shell = ImageShell(home(tmp_path, {}), image)
    *start, grade = section_commands(2)
    for argv in start:
        shell.run(argv)
    release = teacher / "out" / "attention"
    for folder, name in (("exercises", "filename"), ("notebooks", "notebook")):
        written = sorted(p.name for p in (shell.cwd / folder).iterdir())
        assert written == sorted(getattr(BY_ID[ex], name) for ex in IDS)
        assert all((shell.cwd / folder / n).read_bytes() == (release / folder / n).read_bytes() for n in written)
    if which == "solutions":
        for ex in IDS:
            (shell.cwd / "exercises" / f"{ex}.py").write_text(_solution(ex), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    again = subprocess.run([str(image / "bin" / NAME), "start", shell.cwd.name], cwd=shell.cwd.parent, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and f"{2 * len(IDS)} files are there already, and none was changed" in again.stderr, again.stderr
    said = shell.run(grade).stdout
    assert f"points of hidden checks, {HIDDEN:g} in all: graded by your teacher" in said, said
    if which == "solutions":
        assert f"Total {PUBLIC:g} / {PUBLIC:g}: all public checks pass" in said, said
    else:
        assert f"Total 0 / {PUBLIC:g}: nothing started yet" in said, said
        assert said.count("not implemented yet") == len(IDS)


def _run_block(image: Path, folder: Path, code: str) -> str:
    """The page's Python block run in ``folder`` by the hub's Python, the value of its last line shown as a notebook shows it (repr)."""
    tree = ast.parse(code)
    last = tree.body.pop()
    program = ast.unparse(tree) + f"\nprint(repr({ast.unparse(last)}))\n"
    proc = subprocess.run(
        [str(image / "bin" / "python"), "-c", program],
        cwd=folder,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _notebook(teacher: Path, ex: str, answer: str | None) -> str:
    """The release's notebook of ``ex``, its answer cell ``answer`` (None: as released)."""
    nb = nbformat.read(teacher / "out" / "attention" / "notebooks" / BY_ID[ex].notebook, as_version=4)
    for cell in nb.cells:
        if answer is not None and cell.metadata.get("exercise") == ex:
            cell.source = answer
    return nbformat.writes(nb)


def test_check_in_a_kernel_grades_the_notebook_of_its_folder(image, teacher, tmp_path):
    """Beside an untouched stub ``.py``, the answered notebook is graded: the
    wheel's stubs tell the grader the ``.py`` is untouched. The notebook as
    released scores nothing."""
    ex = "ex0_weighted_sum"
    (code,) = blocks(SECTION, "python", PAGE)
    assert f'check("{ex}")' in code
    points = BY_ID[ex].public
    stub = (teacher / "out" / "attention" / "exercises" / f"{ex}.py").read_text(encoding="utf-8")
    answered = home(tmp_path / "a", {BY_ID[ex].notebook: _notebook(teacher, ex, _solution(ex)), f"{ex}.py": stub})
    said = _run_block(image, answered, code)
    assert f"Total {points:g} / {points:g}: all public checks pass" in said, said
    assert f"{ex}.ipynb was graded, as {ex}.py is still the untouched stub" in " ".join(said.split()), said
    untouched = home(tmp_path / "b", {BY_ID[ex].notebook: _notebook(teacher, ex, None)})
    said = _run_block(image, untouched, code)
    assert f"Total 0 / {points:g}" in said, said
    # A kernel whose folder has no such notebook: what to do, not a traceback.
    said = _run_block(image, home(tmp_path / "c", {}), code)
    assert f"There is no {ex}.ipynb in this folder" in said and "attention-grader start" in said, said


def test_the_installed_grader_grades_in_the_sandbox(image, tmp_path):
    """``--sandbox require``: the sandbox binds the site-packages the wheel
    lies in (torch is there too), which holds nothing to keep out."""
    from grader.engine import sandbox

    if not sandbox.available():
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("CI must run this in the sandbox: bubblewrap is missing")
        pytest.skip("no bubblewrap sandbox here")
    ex = "ex2_scores"
    folder = home(tmp_path, {f"exercises/{ex}.py": _solution(ex)})
    said = ImageShell(folder, image).run([NAME, "grade", "--sandbox", "require", "--only", ex, "exercises"]).stdout
    points = BY_ID[ex].public
    assert f"Total {points:g} / {points:g}" in said, said


# --- tox beside a pyproject.toml ---------------------------------------------------


def test_tox_builds_no_package_in_the_student_edition(teacher, tmp_path):
    """Each environment of the student edition's tox.ini skips the install,
    and tox, run there with the deps left out (nothing downloaded), makes
    no packaging environment although pyproject.toml is there."""
    tox = shutil.which("tox")
    if tox is None:
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("CI runs tox -e test, so tox must be on PATH here")
        pytest.skip("tox is not on PATH")
    folder = tmp_path / "attention"
    shutil.copytree(teacher / "out" / "attention", folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TOX_", "VIRTUAL_ENV"))}
    shown = subprocess.run([tox, "config", "-e", "ALL", "-k", "package", "skip_install"], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    envs = re.findall(r"^\[testenv:(\w+)\]$", shown.stdout, re.M)
    assert set(envs) == {"grade", "lab", "write"}
    assert shown.stdout.count("package = skip") == shown.stdout.count("skip_install = True") == len(envs)
    overrides = [a for e in envs for a in ("-x", f"testenv:{e}.deps=")]
    ran = subprocess.run([tox, "run", "-e", ",".join(envs), "--notest", *overrides], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    made = {p.name for p in (folder / ".tox").iterdir() if p.is_dir()}
    assert made - {".tmp"} == set(envs), (made, ran.stdout)  # .tmp: tox's own; no .pkg, where it builds a package
    assert ".pkg" not in ran.stdout
