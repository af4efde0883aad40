"""Adding an exercise is one row of the table and the exercise's own files.

In a copy of the project (what grading and the per-exercise tests need: the
grader, the checks, the solutions, the stubs, the experiments, write/, tests/
and the docs' answer-page generator), a ninth exercise ``ex8_residual``
(``add_residual(x, y)``) is added as docs/teachers/new_exercise.md says: its
solution, public and hidden checks, experiment, docs page, one wrong and one
right catalogue file (the wrong one with every mark of
tests/support/catalogue_marks.py) and ONE row appended to ``EXERCISES``. Nothing else
is edited. Then, run in the copy:

- ``python -m grader.teacher.stubs`` writes its stub, ``--check`` agrees;
- ``python -m grader grade`` gives the solutions full marks on it (and on
  every other exercise), and the wrong file loses points on it;
- the catalogue's marks, the degenerate targets, the unseen-input lists,
  ``tox -e write``'s order and the answer pages all have it.

The copy's total is 100 plus the new row's points: the table says what the
course is worth, and nothing here needs it to be 100.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import FOLDERS

ROOT = Path(__file__).resolve().parents[2]
NEW = "ex8_residual"
ROW = f'    Exercise("{NEW}", "残差相加", "adding the residual", public=2, hidden=1, defines=("add_residual",)),\n'

SOLUTION = '''\
"""ex8_residual: 把子层的输出加回输入 / adding a sublayer's output back to its input.

残差连接让每一层只学要改的那一点。
A residual connection lets each layer learn only what to change.
"""
import torch


def add_residual(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """返回 x + y，不改动输入。
    Return ``x + y``, leaving the inputs unchanged.

    形状 / Shapes: x 和 y 同形，输出也是 / x and y alike, and so is the output.

    例子 / Example::

        >>> add_residual(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5]))
        tensor([1.5000, 2.5000])
    """
    # BEGIN SOLUTION
    return x + y
    # END SOLUTION
'''

PUBLIC = '''\
"""ex8_residual: public checks."""
import pytest
import torch

from grader.authoring.checking import expect_close, randn, t


@pytest.mark.points(1)
def test_example(sub, ref):
    """一个小例子 / a small example"""
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5])
    expect_close(sub.add_residual(x, y), ref.add_residual(x, y), what=t("add_residual([1, 2], [0.5, 0.5])", "add_residual([1, 2], [0.5, 0.5])"))


@pytest.mark.points(1)
def test_random(sub, ref):
    """随机的输入 / random inputs"""
    x, y = randn(2, 3, 4, seed=81), randn(2, 3, 4, seed=82)
    expect_close(sub.add_residual(x, y), ref.add_residual(x, y), what=t("形状 (2, 3, 4) 的 x 和 y", "x and y of shape (2, 3, 4)"))
'''

HIDDEN = '''\
"""ex8_residual: hidden checks."""
import pytest
import torch

from grader.authoring.checking import expect_close, randn, t


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    x, y = randn(3, 5, seed=83, dtype=torch.float64), randn(3, 5, seed=84, dtype=torch.float64)
    expect_close(sub.add_residual(x, y), ref.add_residual(x, y), what=t("float64 的 x 和 y", "float64 x and y"))
'''

WRONG = SOLUTION.replace(
    '"""ex8_residual: 把子层',
    '"""ex8 mistake: the sublayer\'s output replaces the input instead of adding to it.\nzh: 用子层的输出代替了输入，没有相加。\n"""\n# marked: representative, release-set-1, release-set-2, cross-student\n"""ex8_residual: 把子层',
).replace("return x + y", "return y")
RIGHT = SOLUTION.replace('"""ex8_residual: 把子层', '"""ex8 variant: torch.add.\n"""\n"""ex8_residual: 把子层').replace("return x + y", "return torch.add(x, y)")

EXPERIMENT = '''\
"""ex8 实验：残差让输出接近输入。
ex8 experiment: the residual keeps the output close to the input.
"""
import torch

x = torch.randn(4)
print(x, x + 0.01 * torch.randn(4))
'''

PAGE = f"""({NEW})=
# {NEW}：残差相加 · adding the residual

:::{{zh}}
把子层的输出加回输入。
:::

:::{{en}}
Add a sublayer's output back to its input.
:::
"""

COPIED = ("grader", "checks", "solutions", "exercises", "experiments", "write", "tests", "docs/_ext", "docs/answers", "docs/path")


def _ignore(folder, names):
    return [n for n in names if n in ("__pycache__", ".pytest_cache") or (folder.endswith("docs/answers") and n.startswith("ex"))]


def add_exercise(root: Path) -> None:
    """The new exercise's own files and its row: nothing else."""
    (root / "solutions" / f"{NEW}.py").write_text(SOLUTION, encoding="utf-8")
    (root / "checks" / "public" / f"test_{NEW}.py").write_text(PUBLIC, encoding="utf-8")
    (root / "checks" / "hidden" / f"test_{NEW}.py").write_text(HIDDEN, encoding="utf-8")
    (root / "experiments" / f"{NEW}_experiment.py").write_text(EXPERIMENT, encoding="utf-8")
    (root / "docs" / "path" / f"{NEW}.md").write_text(PAGE, encoding="utf-8")
    (root / "tests" / "catalogue" / "wrong" / f"{NEW}__replaces_the_input.py").write_text(WRONG, encoding="utf-8")
    (root / "tests" / "catalogue" / "right" / f"{NEW}__torch_add.py").write_text(RIGHT, encoding="utf-8")
    table = root / "grader" / "exercises.py"
    text = table.read_text(encoding="utf-8")
    end = text.index("\n)\nIDS = ") + 1
    table.write_text(text[:end] + ROW + text[end:], encoding="utf-8")


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("new-exercise") / "project"
    for part in COPIED:
        shutil.copytree(ROOT / part, root / part, ignore=_ignore)
    add_exercise(root)
    return root


def run(copy: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # As conftest.py sets the path up: the helpers, and each folder of tests (they import one another's tables).
    tests = [str(copy / "tests" / folder) for folder in ("support", *FOLDERS)]
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(copy / "tests"), *tests, str(copy / "docs" / "_ext")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=300)


def derived(copy: Path, code: str):
    """What ``code`` (a Python expression) gives in the copy, through JSON."""
    proc = run(copy, "-c", f"import json\nprint(json.dumps({code}))")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def grade(copy: Path, folder: Path, out: Path) -> dict:
    proc = run(copy, "-m", "grader", "grade", str(folder), "--sandbox", "off", "--inputs-seed", "0", "--json", str(out))
    assert out.is_file(), proc.stdout + proc.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def points(results: dict, exercise: str) -> tuple[float, float]:
    tests = [t for t in results["tests"] if t["tags"][0] == exercise]
    return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)


def test_the_stub_is_written(copy):
    stub = copy / "exercises" / f"{NEW}.py"
    assert not stub.exists()
    proc = run(copy, "-m", "grader.teacher.stubs")
    assert proc.returncode == 0, proc.stderr
    text = stub.read_text(encoding="utf-8")
    assert "def add_residual" in text and "NotImplementedError" in text and "return x + y" not in text
    assert run(copy, "-m", "grader.teacher.stubs", "--check").returncode == 0


def test_the_solutions_score_full_marks_and_the_mistake_loses(copy, tmp_path):
    results = grade(copy, copy / "solutions", tmp_path / "right.json")
    total = derived(copy, "__import__('grader.exercises').exercises.TOTAL")
    assert total == 103
    assert results["score"] == total, [(t["name"], t["score"], t["max_score"]) for t in results["tests"] if t["score"] < t["max_score"]]
    assert points(results, NEW) == (3, 3)

    folder = tmp_path / "wrong"
    shutil.copytree(copy / "solutions", folder)
    shutil.copy(copy / "tests" / "catalogue" / "wrong" / f"{NEW}__replaces_the_input.py", folder / f"{NEW}.py")
    results = grade(copy, folder, tmp_path / "wrong.json")
    got, most = points(results, NEW)
    assert most == 3 and got < most
    assert results["score"] == total - most + got  # costs nothing elsewhere


def test_the_per_exercise_tests_pick_it_up(copy):
    marked = derived(copy, "{k: __import__('catalogue_marks').marked(k) for k in __import__('catalogue_marks').KINDS}")
    for kind, chosen in marked.items():
        assert chosen[NEW] == f"{NEW}__replaces_the_input", kind
    assert derived(copy, "__import__('catalogue_marks').problems()") == []
    assert derived(copy, "__import__('degenerate').TARGETS")[NEW] == ["add_residual"]
    assert derived(copy, "__import__('degenerate').coverage_problems()") == []
    assert derived(copy, "__import__('test_unseen_inputs').FUNCTIONS")[NEW] == ["add_residual"]
    assert derived(copy, "__import__('test_unseen_inputs').CLASSES")[NEW] == []
    assert derived(copy, "__import__('test_unseen_inputs').lookup_problems()") == []
    assert derived(copy, "[e.id for e in __import__('write.student').student.EXERCISES]")[-1] == NEW


def test_write_names_the_new_exercise_when_unfinished(copy, tmp_path):
    """``tox -e write``: the solutions with the new exercise's stub are not ready, and say which."""
    folder = tmp_path / "mine"
    shutil.copytree(copy / "solutions", folder)
    run(copy, "-m", "grader.teacher.stubs")
    shutil.copy(copy / "exercises" / f"{NEW}.py", folder / f"{NEW}.py")
    code = textwrap.dedent(f"""
        from write import student
        try:
            student.load({str(folder)!r})
        except student.NotReady as e:
            print(e.problem.exercise)
    """)
    proc = run(copy, "-c", code)
    assert proc.stdout.strip() == NEW, proc.stdout + proc.stderr


def test_its_answer_page_is_generated(copy):
    assert not (copy / "docs" / "answers" / f"{NEW}.md").exists()
    written = derived(copy, "[str(p) for p in __import__('answer_pages').write_pages()]")
    assert str(copy / "docs" / "answers" / f"{NEW}.md") in written
    text = (copy / "docs" / "answers" / f"{NEW}.md").read_text(encoding="utf-8")
    assert f"```{{literalinclude}} ../../solutions/{NEW}.py" in text and f"```{{check-list}} hidden {NEW}" in text
