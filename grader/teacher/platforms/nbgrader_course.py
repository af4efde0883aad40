"""``python -m grader nbgrader --out COURSE``: the unit as an nbgrader course
folder, so that nbgrader's own commands release, validate, autograde and
return it.

    COURSE/nbgrader_config.py
    COURSE/source/<assignment>/<id>.ipynb     one per exercise

Each source notebook is the student notebook
(``course_notebooks.make_notebook``) with nbgrader's cell metadata
(``nbgrader_cells``) on two cells:

- the answer cell, an "autograded answer" (``solution: true``): the
  reference solution, each region the student writes between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, which nbgrader's
  ``generate_assignment`` replaces with a stub;
- the last cell, an "autograder test" worth the exercise's points
  (``grade: true``, locked): ``points("<id>", hidden=hidden)`` from
  ``grader.notebook``, with ``hidden = True`` between ``### BEGIN HIDDEN
  TESTS`` and ``### END HIDDEN TESTS``, which the release leaves out. In a
  student's kernel (Validate) it grades the public checks in the grader's own
  process; ``nbgrader autograde`` runs no kernel at all:
  ``nbgrader_autograde.GradeInSandbox`` grades with every check in the
  sandbox and writes the cell's report and points.

nbgrader_config.py names the course package it was written from (the
grader, the checks and the solutions stay there, never in COURSE): nbgrader
imports the grader from it, and the kernels it starts find it on PYTHONPATH.
The formats are nbgrader 0.9's: its documentation's "Developer
documentation / Metadata" page and its preprocessors' code
(``clearsolutions``, ``clearhiddentests``, ``overwritecells``,
``utils.determine_grade``).
"""

import json
import os
import sys
from dataclasses import dataclass

from grader.authoring.regions import BEGIN, END
from grader.exercises import BY_ID, IDS
from grader.files import PROJECT, write_atomically
from grader.teacher.edition import course_notebooks
from grader.teacher.options import CommandOptions, OptionError
from grader.teacher.platforms.nbgrader_cells import answer_metadata, test_metadata

SOURCE = "source"
CONFIG = "nbgrader_config.py"
# What nbgrader's generate_assignment leaves in place of a solution region.
CODE_STUB = "# 在这里写你的代码 / YOUR CODE HERE\nraise NotImplementedError()"


def answer_source(exercise_id: str, project: str = PROJECT) -> str:
    """The reference solution with nbgrader's solution delimiters."""
    with open(os.path.join(project, "solutions", BY_ID[exercise_id].filename), encoding="utf-8") as f:
        lines = f.read().rstrip("\n").splitlines()
    marks = {BEGIN: "### BEGIN SOLUTION", END: "### END SOLUTION"}
    return "\n".join(line[: len(line) - len(line.lstrip())] + marks[line.strip()] if line.strip() in marks else line for line in lines)


def test_source(exercise_id: str) -> str:
    return (
        "# 自动评分：在另一个进程里评这个笔记本保存的答案，最后的值是得分（nbgrader 按它给分）。\n"
        "# Autograder test: grades the saved answer in another process; its value is the points.\n"
        "from grader.notebook import points\n"
        "\n"
        "hidden = False\n"
        "### BEGIN HIDDEN TESTS\n"
        "hidden = True\n"
        "### END HIDDEN TESTS\n"
        f'points("{exercise_id}", hidden=hidden)'
    )


GRADING = (
    "## 评分 · Grading\n\n"
    "先保存（Ctrl-S），再运行下面的单元格，或者点 Validate：它用公开检查评你保存的答案，"
    "在另一个进程里进行，这个内核里的东西改变不了分数。公开检查全部通过时它没有值（Validate 算通过）；"
    "否则最后的值是公开检查的得分。老师的自动评分还会加上隐藏检查。\n\n"
    "Save first (Ctrl-S), then run the cell below, or press Validate: it grades your saved answer with the "
    "public checks, in another process, so nothing in this kernel can change the score. When every public "
    "check passes it has no value (Validate passes); otherwise its value is the public points earned. "
    "The teacher's autograding adds the hidden checks.\n"
)


def source_notebook(exercise_id: str, project: str = PROJECT, docs_url: str | None = None) -> str:
    """The nbgrader source notebook of ``exercise_id``, as nbformat 4.5 JSON."""
    nb = json.loads(course_notebooks.make_notebook(exercise_id, project, docs_url))
    cells = nb["cells"]
    answer = next(i for i, c in enumerate(cells) if c["metadata"].get("exercise") == exercise_id)
    cells[answer]["source"] = answer_source(exercise_id, project).splitlines(keepends=True)
    cells[answer]["metadata"]["nbgrader"] = answer_metadata(exercise_id)
    cells[-2]["source"] = GRADING.splitlines(keepends=True)
    cells[-1]["source"] = test_source(exercise_id).splitlines(keepends=True)
    cells[-1]["metadata"]["nbgrader"] = test_metadata(exercise_id)
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


def config_text(project: str, course_id: str, relative: str | None = None) -> str:
    """nbgrader_config.py for the course package at ``project`` (absolute),
    ``relative`` to the course folder when the two share a file system."""
    return f'''"""nbgrader's configuration for the self-attention unit, written by
``python -m grader nbgrader`` (run it again rather than editing the notebooks).

The grader, its checks and the solutions stay in the course package; nothing
of them is copied into this folder.
"""
import os
import sys
import warnings

from sqlalchemy.exc import SAWarning

# The course package (grader/ and checks/hidden/): nbgrader imports the grader
# from it, and the kernels nbgrader starts (Validate) find it on PYTHONPATH.
# Looked for in $ATTENTION_PROJECT when it is set, else where it was when this
# file was written: relative to this folder first (a course folder moved or
# copied with the project, to a hub say), then at that absolute path (a course
# folder moved alone).
HERE = os.path.dirname(os.path.abspath(__file__))
WRITTEN_FROM = [os.path.join(HERE, p) for p in {[p for p in (relative, project) if p]!r}]


def is_course_package(folder):
    return os.path.isfile(os.path.join(folder, "grader", "__init__.py")) and os.path.isdir(os.path.join(folder, "checks", "hidden"))


def course_package():
    named = os.environ.get("ATTENTION_PROJECT")
    places = [named] if named else WRITTEN_FROM
    for place in places:
        if is_course_package(place):
            return os.path.abspath(place)
    # SystemExit, not an exception: nbgrader logs a config file's exceptions
    # and goes on without it, and without GradeInSandbox its autograde would
    # run the students' cells in a kernel.
    sys.exit(
        "nbgrader_config.py: 错误 / error: 找不到课程包（有 grader/ 和 checks/hidden/ 的文件夹）/ "
        "cannot find the course package (the folder with grader/ and checks/hidden/); looked in: "
        + ", ".join(os.path.abspath(p) for p in places)
        + "\\n  把 ATTENTION_PROJECT 设为它的路径 / set ATTENTION_PROJECT to its path, "
        "e.g. ATTENTION_PROJECT=/srv/attention nbgrader autograde {course_id}"
    )


ATTENTION = course_package()
sys.path.insert(0, ATTENTION)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ATTENTION, os.environ.get("PYTHONPATH")]))

# nbgrader 0.9's Gradebook.add_submission (api.py) builds a student's
# submission before it adds it to the database session, and SQLAlchemy 2
# warns, for every student, that an autoflush in between left those objects
# out ("Object of type <SubmittedAssignment> not in session, add operation
# along ... will not proceed"; SQLAlchemy 2 no longer cascades along
# backrefs). The session.add that follows adds them, grades and all: noise.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\\w+> not in session", category=SAWarning)

c = get_config()  # noqa: F821 - nbgrader defines it
c.CourseDirectory.course_id = {course_id!r}
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}
# Autograding runs no submitted cell in a kernel: GradeInSandbox grades each
# notebook's answer cells in the grader's sandbox, with the hidden checks, and
# writes the test cells' reports and points (in place of nbgrader's Execute).
# A copied cell (its grade id twice) or nbgrader metadata a student changed
# never stops the class: KeepCopiedCells stands in for nbgrader's DeduplicateIds.
# RestoreHiddenTests puts back the hidden part the release took out of a test
# cell, which OverwriteCells would do with a warning for every such cell.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "grader.teacher.platforms.nbgrader_autograde.KeepCopiedCells",
    "grader.teacher.platforms.nbgrader_autograde.RestoreHiddenTests",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "grader.teacher.platforms.nbgrader_autograde.GradeInSandbox",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The feedback shows the test cells without their hidden part.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "nbgrader.preprocessors.ClearHiddenTests",
]
# A Validate grades in a process of its own, which imports torch: more than
# nbgrader's 30 s per cell on a busy machine.
c.Execute.timeout = 300
'''


def _relative(project: str, out: str) -> str | None:
    try:
        return os.path.relpath(os.path.abspath(project), os.path.abspath(out))
    except ValueError:  # another drive (Windows): no relative path
        return None


def write_course(out: str, assignment: str = "attention", project: str = PROJECT, docs_url: str | None = None) -> list[str]:
    """Write the course folder; the paths written, relative to ``out``."""
    written = []
    folder = os.path.join(out, SOURCE, assignment)
    os.makedirs(folder, exist_ok=True)
    for ex in IDS:
        write_atomically(os.path.join(folder, BY_ID[ex].notebook), source_notebook(ex, project, docs_url))
        written.append(os.path.join(SOURCE, assignment, BY_ID[ex].notebook))
    write_atomically(os.path.join(out, CONFIG), config_text(os.path.abspath(project), assignment, _relative(project, out)))
    written.append(CONFIG)
    return written


@dataclass(frozen=True)
class NbgraderOptions(CommandOptions):
    """What ``python -m grader nbgrader`` is asked to do."""

    out: str  # the course folder to write (nbgrader's CourseDirectory.root)
    assignment: str = "attention"  # the assignment's name: source/<assignment>/
    docs_url: str = course_notebooks.DOCS_URL  # the course site, for the notebooks' links (course_notebooks.page_link)

    def __post_init__(self) -> None:
        self._check_paths("out")
        self._check_names("assignment")
        self._check_texts("docs_url")


def _usage(message: str) -> int:
    print(f"python -m grader nbgrader: 错误 / error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    """``python -m grader nbgrader``: argparse's namespace made a ``NbgraderOptions`` once, and the course folder written."""
    try:
        options = NbgraderOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return write_folder(options)


def write_folder(options: NbgraderOptions) -> int:
    """Write the course folder ``options.out`` and list what was written; the exit code."""
    try:
        written = write_course(options.out, options.assignment, docs_url=options.docs_url)
    except OSError as exc:
        return _usage(f"无法写入 / cannot write {options.out}: {exc}")
    for rel in written:
        print(os.path.join(options.out, rel))
    return 0
