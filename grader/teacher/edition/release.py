"""``python -m grader release --out DIR``: the student edition of the course.

DIR gets the stubs, the public checks, the grader (without the teacher's
verbs), the reference answers the public checks need (recorded from
``solutions/``, so the solutions themselves stay behind), the points of the
hidden checks per exercise (from ``grader/exercises.py``, so the report can
say what the teacher grades), the experiments (the plain-torch scripts that
the docs pages run with ``tox exec -e grade -- python experiments/...``), the
notebooks (``course_notebooks.py``; ``tox -e lab`` opens them), a tox.ini and a
README (``student_readme``) that lists the exercises of the same table, and a
pyproject.toml that builds the grader and its checks as a wheel for a hub's
image (``student_wheel``).
DIR.zip, beside DIR, holds the same tree. With ``--github-classroom`` it
also holds ``.github/workflows/classroom.yml`` (``classroom_workflow``), the
autograding a GitHub Classroom assignment made from it runs on each push.

The release holds no docs/: its README and notebooks link to the course
site's pages at ``--docs-url URL`` (the address it is published at), and,
without it, name the pages without a link rather than link to nothing.

Nothing half-written is left behind: the tree is built in a temporary folder
beside DIR and renamed at the end, and the zip is written to a temporary file
and renamed (see ``packaging``). Before anything is renamed, every file is
searched for the code of the solutions and for the names of the hidden
checks.
"""

import ast
import json
import os
import shutil
import sys
from dataclasses import dataclass

from grader.authoring.regions import solution_regions
from grader.exercises import EXERCISES, IDS
from grader.files import PROJECT, current_umask
from grader.teacher.edition import course_notebooks, packaging
from grader.teacher.edition.student_readme import student_readme
from grader.teacher.options import CommandOptions, OptionError, web_address


@dataclass(frozen=True)
class ReleaseOptions(CommandOptions):
    """What ``python -m grader release`` is asked to do."""

    out: str  # the folder to create; out.zip is written beside it
    docs_url: str | None = None  # the course site's full address; None: the pages named without a link
    github_classroom: bool = False  # add GitHub Classroom's autograding workflow

    def __post_init__(self) -> None:
        self._check_paths("out")
        self._check_flags("github_classroom")
        if self.docs_url is not None and not web_address(self.docs_url):
            # A relative address would point into a docs/ the release does not hold.
            raise OptionError(
                f"--docs-url 要写课程网站的完整网址（https://...），而不是 {self.docs_url!r}\n"
                f"  --docs-url takes the course site's full address (https://...), not {self.docs_url!r}: the release holds no docs/"
            )


def _error(zh_en: str) -> None:
    print(f"python -m grader release: 错误 / error:\n  {zh_en}", file=sys.stderr)


def run(args) -> int:
    """``python -m grader release``: argparse's namespace made a ``ReleaseOptions`` once, and the release built."""
    try:
        options = ReleaseOptions.from_namespace(args)
    except OptionError as exc:
        _error(str(exc))
        return 2
    return make_release(options)


def make_release(options: ReleaseOptions) -> int:
    """Build the student edition in ``options.out`` and its zip; the exit code."""
    out = os.path.abspath(options.out)
    try:
        files = build(out, docs_url=options.docs_url, github_classroom=options.github_classroom)
    except packaging.BuildError as exc:
        _error(f"{exc.zh}\n  {exc.en}")
        return exc.code
    print(f"学生版 / student edition: {out} ({files} files)")
    print(f"压缩包 / zip:             {out}.zip")
    if options.github_classroom:
        from grader.teacher.platforms.classroom_workflow import WORKFLOW

        print(f"GitHub Classroom:         {os.path.join(out, WORKFLOW)}")
    return 0


def build(out: str, project: str = PROJECT, docs_url: str | None = None, github_classroom: bool = False) -> int:
    """Build the release in ``out`` and ``out.zip``, linking to the course site
    at ``docs_url`` (None: no links to it), with GitHub Classroom's workflow
    when ``github_classroom``; return the number of files."""
    if os.path.lexists(out) and (not os.path.isdir(out) or os.path.islink(out) or os.listdir(out)):
        raise packaging.BuildError(
            f"{out} 已存在且不是空文件夹：请换一个 --out，或先删掉它",
            f"{out} exists and is not an empty folder: choose another --out, or remove it first",
            code=2,
        )
    with packaging.staging_folder(out) as tmp:
        _fill(tmp, project, docs_url)
        if github_classroom:
            from grader.teacher.platforms import classroom_workflow

            classroom_workflow.write(tmp, project)
        _refuse_leaks(tmp, project)
        # The folder is renamed into place once the zip is written, and the
        # zip once the folder is: neither is left alone if the other fails.
        with packaging.zip_into_place(tmp, out + ".zip", top=os.path.basename(out)):
            os.chmod(tmp, 0o777 & ~current_umask())  # a temporary folder is private; the release is not
            if os.path.isdir(out):
                os.rmdir(out)  # empty (checked above)
            os.rename(tmp, out)
    return sum(len(names) for _, _, names in os.walk(out))


def _fill(root: str, project: str, docs_url: str | None = None) -> None:
    solutions = os.path.join(project, "solutions")
    checks = os.path.join(project, "checks")

    # The stubs, made afresh from the solutions (the answers below are recorded from the same files).
    from grader.teacher import stubs

    os.makedirs(os.path.join(root, "exercises"))
    for ex in IDS:
        with open(os.path.join(solutions, ex + ".py"), encoding="utf-8") as f:
            stub = stubs.make_stub(f.read(), ex)
        packaging.write_text(os.path.join(root, "exercises", ex + ".py"), stub)

    packaging.copy_py(os.path.join(checks, "public"), os.path.join(root, "checks", "public"))
    shutil.copyfile(os.path.join(checks, "pytest.ini"), os.path.join(root, "checks", "pytest.ini"))
    # The student edition's grader is grader/ without teacher/: the command
    # line then offers the student's verbs only.
    packaging.copy_py(os.path.join(project, "grader"), os.path.join(root, "grader"), leave_out=frozenset({"teacher"}))
    # Every environment's install command (the first install, seen; the CPU
    # build of torch) and its one copy of torch on disk: the student edition's tox.ini names them.
    os.makedirs(os.path.join(root, "tox_install"))
    for helper in ("__init__.py", "pip_install.py", "shared_installs.py"):
        shutil.copyfile(os.path.join(project, "tox_install", helper), os.path.join(root, "tox_install", helper))

    answers = _record(project)
    from grader.engine import recorded

    recorded.save(answers, os.path.join(root, "checks", "public", recorded.ANSWERS_FILE))
    hidden_points = {e.id: e.hidden for e in EXERCISES}
    packaging.write_text(os.path.join(root, "checks", "hidden_points.json"), json.dumps(hidden_points, indent=2) + "\n")

    packaging.write_text(os.path.join(root, "tox.ini"), student_tox_ini(project))
    packaging.write_text(os.path.join(root, "README.md"), student_readme(sum(hidden_points.values()), project, docs_url))

    # Each docs page runs its experiment from the course folder; it uses torch only, never the solutions.
    packaging.copy_py(os.path.join(project, "experiments"), os.path.join(root, "experiments"))
    # The same notebooks as the course's, but for the link to each page: the release has no docs/.
    site = docs_url if docs_url else course_notebooks.NO_SITE
    course_notebooks.write_all(os.path.join(root, course_notebooks.NOTEBOOKS), project, docs_url=site)

    # python -m write (tox -e write) trains the student's own GPT, on the text it ships with: docs/ does not.
    write = os.path.join(project, "write")
    packaging.copy_py(write, os.path.join(root, "write"))
    shutil.copyfile(os.path.join(write, "corpus.txt"), os.path.join(root, "write", "corpus.txt"))

    # The grader, its checks and the stubs as a wheel for a hub's image (pip wheel builds it; tox does not).
    from grader.teacher.edition import student_wheel

    packaging.write_text(os.path.join(root, "pyproject.toml"), student_wheel.pyproject(root, project))


def _record(project: str) -> dict:
    """Grade the solutions twice: the public checks only, recording every
    reference answer they use; then every check. The solutions must score
    full marks both times, or the checks are broken; and the checks must be
    worth the table's points (``packaging.grade_solutions``)."""
    answers: dict = {}
    packaging.grade_solutions(project, "学生版", "release", record_into=answers)
    return answers


def _tox_env(project: str, env: str):
    """tox.ini's section ``[testenv:env]``."""
    import configparser

    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(project, "tox.ini"), encoding="utf-8")
    return config[f"testenv:{env}"]


def _added_deps(project: str, env: str) -> list[str]:
    """What tox.ini's environment ``env`` adds to [base] deps (write: its progress bar; lab: JupyterLab)."""
    return [d.strip() for d in _tox_env(project, env)["deps"].splitlines() if d.strip() and not d.strip().startswith(("{", "#"))]


def _setting(project: str, section: str, key: str) -> str:
    """tox.ini's ``[section]`` ``key``, as the student's tox.ini takes it: the grade
    command (``--exit-code``), and every environment's install command (the
    first install, seen) and step before its commands (one torch on disk)."""
    import configparser

    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(project, "tox.ini"), encoding="utf-8")
    return config[section][key].strip()


def student_tox_ini(project: str = PROJECT) -> str:
    deps = "".join(f"    {d}\n" for d in packaging.tox_base_deps(project))
    write_deps = deps + "".join(f"    {d}\n" for d in _added_deps(project, "write"))
    lab_deps = deps + "".join(f"    {d}\n" for d in _added_deps(project, "lab"))
    # The lab's command as tox.ini has it (JupyterLab's options, allow_root among them).
    lab_command = _tox_env(project, "lab")["commands"].strip()
    return f"""\
# Grade your exercises: `tox -e grade`; one exercise: `tox -e grade -- --only ex4_masking`.
# In Jupyter: `tox -e lab` opens the notebooks; check("<id>") in one grades it.
# Then train a small GPT built from them and let it write: `tox -e write`.
#
# torch is pinned. Every environment installs through tox_install/pip_install.py:
# it shows what it installs and pip's progress, and on Linux adds PyTorch's CPU
# index to your own pip settings (a mirror in pip.conf stays in force), so that
# the CPU build comes instead of PyPI's CUDA build of several GB. The environments
# share one copy of torch on disk (tox_install/shared_installs.py).
[tox]
env_list = grade
skip_missing_interpreters = true

[testenv]
skip_install = true
package = skip
pass_env =
    PIP_*
    ATTENTION_TORCH_INDEX
set_env =
    PYTHONPATH = {{tox_root}}
install_command = {_setting(project, "testenv", "install_command")}
commands_pre = {_setting(project, "testenv", "commands_pre")}

[testenv:grade]
description = grade your exercises (python -m grader grade exercises); pass arguments after --
deps =
{deps}commands = {_setting(project, "testenv:grade", "commands")}

[testenv:lab]
description = open the exercises' notebooks (notebooks/) in JupyterLab, with a kernel that has torch; check("<id>") in a notebook grades it
deps =
{lab_deps}# allow_root: Jupyter refuses to start as root without it (in a container, on a lab machine).
commands = {lab_command}

[testenv:write]
description = train a small GPT built from your exercises on the course's text and let it write (about 2 minutes); pass arguments after --
deps =
{write_deps}commands = python -m write {{posargs}}
"""


# - leak guard -


def _code_lines(text: str) -> list[str]:
    """Lines without comments or indentation, empty ones dropped: how a region is compared."""
    out = []
    for line in text.splitlines():
        code = line.split("#", 1)[0].strip()
        if code:
            out.append(code)
    return out


def _readable(name: str, data: bytes) -> str:
    """A file's text as code is compared: a notebook's cells' sources one
    after the other (in its JSON, each line of a cell is a quoted string)."""
    text = data.decode("utf-8", errors="replace")
    if name.endswith(".ipynb"):
        try:
            cells = json.loads(text).get("cells", [])
            return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)
        except (ValueError, AttributeError, KeyError, TypeError):
            pass  # not a notebook after all: compared as text
    return text


def solution_code(project: str = PROJECT) -> list[tuple[str, str]]:
    """(exercise, code) of every solution region, as ``_code_lines`` joined."""
    out = []
    for ex in IDS:
        with open(os.path.join(project, "solutions", ex + ".py"), encoding="utf-8") as f:
            for region in solution_regions(f.read()):
                code = "\n".join(_code_lines(region))
                if code:
                    out.append((ex, code))
    return out


def hidden_only_check_names(project: str = PROJECT) -> set[str]:
    """Names of the check functions in checks/hidden that no public check shares."""

    def names(folder):
        found = set()
        if not os.path.isdir(folder):
            return found
        for name in os.listdir(folder):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                found |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
        return found

    checks = os.path.join(project, "checks")
    return names(os.path.join(checks, "hidden")) - names(os.path.join(checks, "public"))


def find_leaks(root: str, project: str = PROJECT) -> list[str]:
    """Files under ``root`` that contain the code of a solution region (all
    its lines, in order, comments and indentation aside) or the name of a
    hidden-only check."""
    regions = solution_code(project)
    hidden = sorted(hidden_only_check_names(project))
    found = []
    for dirpath, _, filenames in os.walk(root):
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, "rb") as f:
                data = f.read()
            found += [f"{rel}: hidden check {h}" for h in hidden if h.encode() in data]
            text = "\n" + "\n".join(_code_lines(_readable(name, data))) + "\n"
            found += [f"{rel}: the solution of {ex}" for ex, code in regions if "\n" + code + "\n" in text]
    return found


def _refuse_leaks(root: str, project: str) -> None:
    found = find_leaks(root, project)
    if found:
        raise packaging.BuildError(
            "学生版里出现了答案或隐藏检查，没有生成学生版",
            "the release would contain solutions or hidden checks; nothing was written:\n  " + "\n  ".join(found),
        )
