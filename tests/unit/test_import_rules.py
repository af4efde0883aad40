"""The grader's rooms and floors hold: no room is too full, no module
imports up a floor or in a circle; children never load checks, solutions or the
engine; the batch, the class report and the command line stay free of
torch; nothing the student edition ships imports grader/teacher/; and a
package's ``__init__.py`` imports nothing (``import_rules.py`` has the
rules). Each rule is also broken on purpose in a copy of the tree, to show
that the reader catches it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT as PROJECT
from import_rules import MOST_IN_A_ROOM, STUDENT_EDITION, TOP_LEVEL_MOST, TORCH_FREE, violations

ROOT = Path(PROJECT)


def test_the_course_keeps_its_import_rules():
    assert violations(ROOT) == []


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A copy of the tree the rules read, made once; each test breaks its own copy of it."""
    copy = tmp_path_factory.mktemp("layers")
    for folder in STUDENT_EDITION + ("checks/hidden", "solutions"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert violations(copy) == []
    return copy


BROKEN = {
    "child_loads_a_hidden_check": (
        "grader/child/ops.py",
        "\n\ndef _peek():\n    from checks.hidden import test_ex0_weighted_sum\n",
        "the child module grader.child.ops imports checks.hidden",
    ),
    "child_loads_a_solution": (
        "grader/child/worker.py",
        "\nimport solutions.ex5_head\n",
        "the child module grader.child.worker imports solutions.ex5_head",
    ),
    "child_loads_the_engine": (
        "grader/child/standins.py",
        "\n\ndef _score():\n    import grader.engine.grading\n",
        "the child module grader.child.standins imports grader.engine.grading",
    ),
    "batch_imports_torch_lazily": (
        "grader/teacher/batch/command.py",
        "\n\ndef _tensor():\n    import torch\n\n    return torch.zeros(1)\n",
        "the torch-free grader.teacher.batch.command loads torch through torch",
    ),
    "class_report_loads_torch_through_another_module": (
        "grader/teacher/report/class_report.py",
        "\nfrom grader.child import ops\n",
        "the torch-free grader.teacher.report.class_report loads torch through grader.child.ops -> torch",
    ),
    "engine_imports_the_teacher": (
        "grader/engine/redact.py",
        "\nfrom grader.teacher.stubs import make_stub\n",
        "grader.engine.redact imports the teacher's grader.teacher.stubs",
    ),
    "student_edition_imports_the_teacher": (
        "write/student.py",
        "\nfrom grader.teacher.report.similar import THRESHOLD\n",
        "write/student.py:",
    ),
    "kernel_client_grades_in_the_kernel": (
        "grader/student/warm_grader.py",
        "\n\ndef _grade_here(path):\n    from grader.engine.grading import Grader\n\n    return Grader().grade(path)\n",
        "grader.student.warm_grader, imported in a notebook's kernel, loads grader.engine",
    ),
    "notebook_check_loads_torch_through_another_module": (
        "grader/notebook.py",
        "\n\ndef _tensor():\n    from grader.child import ops\n",
        "grader.notebook, imported in a notebook's kernel, loads grader.child",
    ),
    "engine_imports_the_command_line": (
        "grader/student/warm_server.py",
        "\n\ndef _parse(argv):\n    from grader import cli\n\n    return cli._parser().parse_args(argv)\n",
        "grader.student.warm_server (floor: student) imports grader.cli, up a floor (command line)",
    ),
    "teacher_modules_import_each_other": (
        "grader/teacher/platforms/nbgrader_cells.py",
        "\n\ndef _course():\n    from grader.teacher.platforms import nbgrader_course\n",
        "an import cycle: grader.teacher.platforms.nbgrader_cells -> grader.teacher.platforms.nbgrader_course -> grader.teacher.platforms.nbgrader_cells",
    ),
    "authoring_imports_the_engine": (
        "grader/authoring/worked_examples.py",
        "\n\ndef _run(cls, kwargs, response):\n    from grader.engine.grading import Grader\n",
        "grader.authoring.worked_examples (floor: authoring) imports grader.engine.grading, up a floor (engine)",
    ),
    "engine_imports_the_students_report": (
        "grader/engine/grading.py",
        "\nfrom grader.student.report import Grade\n",
        "grader.engine.grading (floor: engine) imports grader.student.report, up a floor (student)",
    ),
    "hand_in_reader_imports_a_check_helper": (
        "grader/handin/notebook_source.py",
        "\n\ndef _fmt(x):\n    from grader.authoring.checking import fmt\n",
        "grader.handin.notebook_source (floor: hand-in) imports grader.authoring.checking, up a floor (authoring)",
    ),
    "package_init_imports": (
        "grader/teacher/__init__.py",
        "from grader.teacher import batch\n",
        "grader/teacher/__init__.py: imports something",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_rule_is_caught(pristine, tmp_path, case):
    copy = tmp_path / "course"
    shutil.copytree(pristine, copy)
    relative, added, expected = BROKEN[case]
    with open(copy / relative, "a", encoding="utf-8") as f:
        f.write(added)
    found = violations(copy)
    assert any(expected in line for line in found), f"{case}: not caught; found {found}"
    assert all(line.startswith(relative) or relative.replace("/", ".").removesuffix(".py") in line for line in found), found


def test_a_room_too_full_is_caught(pristine, tmp_path):
    """One module more than a room may hold, in a room and at grader/'s top level."""
    copy = tmp_path / "course"
    shutil.copytree(pristine, copy)
    engine = copy / "grader" / "engine"
    for i in range(MOST_IN_A_ROOM + 1 - len([p for p in engine.glob("*.py") if p.name != "__init__.py"])):
        (engine / f"extra_{i}.py").write_text('"""one more"""\n', encoding="utf-8")
    assert violations(copy) == [f"grader/engine/: {MOST_IN_A_ROOM + 1} modules; a room holds at most {MOST_IN_A_ROOM}"]
    (copy / "grader" / "extra.py").write_text('"""one more at the top"""\n', encoding="utf-8")
    assert f"grader/: {TOP_LEVEL_MOST + 1} modules; a room holds at most {TOP_LEVEL_MOST}" in violations(copy)


def test_the_torch_free_modules_are_torch_free_when_run():
    """What the AST says, checked once in a real interpreter."""
    code = (
        "import importlib, sys\n"
        f"for name in {list(TORCH_FREE)!r}:\n"
        "    importlib.import_module(name)\n"
        "import grader.cli\n"
        "grader.cli._parser()\n"
        "loaded = sorted(m for m in sys.modules if m == 'torch' or m.startswith(('checks', 'solutions')))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
