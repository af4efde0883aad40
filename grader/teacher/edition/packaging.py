"""What the teacher's two packages share: the student edition (``release``)
and the Gradescope bundle (``gradescope``).

Neither is built unless the solutions score full marks with every check
(``grade_solutions``): a check the reference fails is a broken check; nor
unless the checks are worth the points of ``grader/exercises.py``. Both
take their pins from tox.ini (``tox_base_deps``), and both are put together
in a temporary folder beside where they go (``staging_folder``) and zipped
into a temporary file that is renamed into place (``zip_into_place``), so a
failed build leaves nothing half-written behind.
"""

import configparser
import contextlib
import os
import shutil
import tempfile
import zipfile

from grader.files import replacing

# Fixed timestamps in a zip: the same course gives the same archive listing.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


class BuildError(Exception):
    """The package cannot be built; ``code`` is the exit status."""

    def __init__(self, zh: str, en: str, code: int = 3):
        super().__init__(en)
        self.zh, self.en, self.code = zh, en, code


def grade_solutions(project: str, product_zh: str, product_en: str, record_into: dict | None = None):
    """Grade the project's ``solutions/`` with every check and return the
    grade. With ``record_into``, first grade them with the public checks
    only, recording there every reference answer those checks use. Raises
    ``BuildError`` (naming the ``product`` that was not built) unless each
    grade is full marks."""
    from grader.engine.grading import Grader

    solutions = os.path.join(project, "solutions")
    grader = Grader(checks_dir=os.path.join(project, "checks"), solutions_dir=solutions)
    try:
        grades = []
        if record_into is not None:
            grades.append(("public", grader.grade(solutions, public_only=True, record_into=record_into)))
        grades.append(("all", grader.grade(solutions)))
    finally:
        grader.close()
    for which, grade in grades:
        failed = [f"{r.exercise}: {r.check_id}" for r in grade.results if not r.passed]
        if grade.errors or failed or not grade.results:
            raise BuildError(
                f"参考答案没有通过全部检查（{which}），没有生成{product_zh}",
                f"the solutions do not pass every check ({which} checks); no {product_en} was built:\n  " + "\n  ".join(failed + grade.errors),
            )
    drift = points_drift(grades[-1][1])
    if drift:
        raise BuildError(
            f"检查的分数与 grader/exercises.py 里的不一致，没有生成{product_zh}",
            f"the checks' points disagree with grader/exercises.py; no {product_en} was built:\n  " + "\n  ".join(drift),
        )
    return grades[-1][1]


def points_drift(grade) -> list[str]:
    """Where the points of a full grading (every check) differ from the
    exercises' table, one line each: the table is what students and the
    gradebook are told."""
    from grader.exercises import EXERCISES

    out = []
    for e in EXERCISES:
        for hidden, want in ((False, e.public), (True, e.hidden)):
            got = sum(r.max_points for r in grade.results if r.exercise == e.id and r.hidden == hidden)
            if got != want:
                which = "hidden" if hidden else "public"
                out.append(f"{e.id}: the {which} checks are worth {got:g}, the table says {want:g}")
    return out


def tox_base_deps(project: str) -> list[str]:
    """The requirements of the project's tox.ini (``[base] deps``): one pin, two copies cannot drift."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(project, "tox.ini"), encoding="utf-8")
    deps = [line.strip() for line in config.get("base", "deps").splitlines() if line.strip()]
    if not any(d.startswith("torch==") for d in deps):
        raise BuildError("tox.ini 的 [base] deps 里没有固定 torch 版本", "tox.ini's [base] deps has no torch== pin")
    return deps


# - files -


def write_text(path: str, text: str) -> None:
    """UTF-8 with Unix line ends, whatever the machine that builds."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def copy_py(src: str, dst: str, leave_out: frozenset = frozenset()) -> None:
    """Copy the ``.py`` files of ``src`` and of its subfolders (the grader's
    layers) into ``dst``, made if need be; a subfolder named in ``leave_out``
    is left out whole, and so are Python's and Jupyter's own (``__pycache__``;
    ``.ipynb_checkpoints``, where JupyterLab keeps a copy of each file edited
    in it: ``-checkpoint.py`` files)."""
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if name in leave_out or name in ("__pycache__", ".ipynb_checkpoints"):
            continue
        if os.path.isdir(path):
            copy_py(path, os.path.join(dst, name))
        elif name.endswith(".py"):
            shutil.copyfile(path, os.path.join(dst, name))


@contextlib.contextmanager
def staging_folder(out: str):
    """A new temporary folder beside ``out`` (whose parent is made if need
    be). It is removed when the block ends, unless the block renamed it."""
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}-building-", dir=parent)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def zip_into_place(tree: str, out: str, top: str = "", executable: frozenset = frozenset()):
    """Zip ``tree`` (see ``write_zip``) into a temporary file beside ``out``,
    run the block, then rename the zip to ``out``. If the zip, the block or
    the rename fails, ``out`` is as it was and no temporary file is left."""
    with replacing(out) as tmp:
        write_zip(tmp, tree, top, executable)
        yield


def write_zip(path: str, tree: str, top: str = "", executable: frozenset = frozenset()) -> None:
    """Write every file under ``tree`` into the zip ``path``, under ``top/``
    (or at the root), in sorted order with fixed timestamps. Paths in
    ``executable`` (relative, with /) get mode 755."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, tree).replace(os.sep, "/")
                info = zipfile.ZipInfo(f"{top}/{rel}" if top else rel, ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (0o100755 if rel in executable else 0o100644) << 16
                with open(full, "rb") as f:
                    z.writestr(info, f.read())
