"""``grader/exercises.py`` is the one table of the exercises: the checks'
points, the stand-ins the checks ask for, the files, the docs pages and the
README are held to it here, so none of them can drift from it.

Nothing is graded: the checks are read as source (their markers and the
``standins=`` they pass), the way the docs' check lists read them.
"""

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT

from grader.authoring import contract
from grader.child import standins
from grader.exercises import BY_ID, EXERCISES, IDS, TOTAL, count_en, count_zh

ROOT = Path(ROOT)
CHECKS = ROOT / "checks"


def check_file(visibility: str, exercise: str) -> Path:
    return CHECKS / visibility / f"test_{exercise}.py"


def check_functions(visibility: str, exercise: str) -> list[ast.FunctionDef]:
    """The check functions of one file; none when the file is not written yet."""
    path = check_file(visibility, exercise)
    if not path.is_file():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def _markers(fn: ast.FunctionDef, name: str) -> list[ast.Call]:
    return [d for d in fn.decorator_list if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == name]


def marked_points(visibility: str, exercise: str) -> float:
    return sum(float(ast.literal_eval(_markers(fn, "points")[0].args[0])) for fn in check_functions(visibility, exercise))


def test_the_course_is_worth_100():
    assert TOTAL == sum(e.public + e.hidden for e in EXERCISES) == 100
    assert len(set(IDS)) == len(IDS) and all(re.fullmatch(rf"ex{i}_[a-z0-9_]+", ex) for i, ex in enumerate(IDS)), IDS


@pytest.mark.parametrize("visibility", ["public", "hidden"])
def test_every_check_has_one_points_marker(visibility):
    """A check without a marker would count 0 (the plugin's default) and one
    parametrized or in a class would count several times: neither may hide
    from the sums below."""
    for ex in IDS:
        path = check_file(visibility, ex)
        for fn in check_functions(visibility, ex):
            assert len(_markers(fn, "points")) == 1, f"{path.name}: {fn.name} needs exactly one @pytest.mark.points(n)"
            assert not _markers(fn, "parametrize"), f"{path.name}: {fn.name} is parametrized"
        if path.is_file():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            assert not [n.name for n in tree.body if isinstance(n, ast.ClassDef)], f"{path.name}: checks are functions"


@pytest.mark.parametrize("ex", IDS)
def test_check_markers_add_up_to_the_table(ex):
    """The points of checks/public/test_<ex>.py and checks/hidden/test_<ex>.py
    are the table's. A check file not written yet counts 0 and fails here."""
    e = BY_ID[ex]
    got = {"public": marked_points("public", ex), "hidden": marked_points("hidden", ex)}
    assert got == {"public": e.public, "hidden": e.hidden}, f"{ex}: the checks' @pytest.mark.points add up to {got}; grader/exercises.py says public={e.public}, hidden={e.hidden}"


def standins_asked(ex: str) -> set[str]:
    """Every class name an exercise's checks pass as ``standins=``: a tuple
    of names, or a constant of grader/authoring/contract.py."""
    names = set()
    for visibility in ("public", "hidden"):
        for fn in check_functions(visibility, ex):
            for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
                for kw in call.keywords:
                    if kw.arg != "standins":
                        continue
                    if isinstance(kw.value, ast.Name):
                        value = getattr(contract, kw.value.id)
                    elif isinstance(kw.value, ast.Attribute):  # contract.BLOCK_STANDINS
                        value = getattr(contract, kw.value.attr)
                    else:
                        value = ast.literal_eval(kw.value)
                    names.update(value)
    return names


@pytest.mark.parametrize("ex", IDS)
def test_standins_are_the_tables(ex):
    """The checks of an exercise ask for exactly the stand-ins its row names,
    and the grader has each of them."""
    e = BY_ID[ex]
    assert standins_asked(ex) == set(e.standins), f"{ex}: the checks ask for stand-ins {sorted(standins_asked(ex))}, the table says {list(e.standins)}"
    assert set(e.standins) <= set(standins.BY_CONTRACT), f"{ex}: no stand-in in grader/child/standins.py for {set(e.standins) - set(standins.BY_CONTRACT)}"


def test_packages_refuse_points_that_are_not_the_tables():
    """The release and the Gradescope bundle grade the solutions first: a
    grade whose checks are worth other points than the table's is named,
    exercise by exercise (packaging.grade_solutions then builds nothing)."""
    from grader.engine.grading import Grade
    from grader.engine.plugin import CheckResult
    from grader.teacher.edition.packaging import points_drift

    def grade():
        results = []
        for e in EXERCISES:
            results.append(CheckResult(e.id, "p / p", "test_p", e.public, e.public, False, True))
            results.append(CheckResult(e.id, "h / h", "test_h", e.hidden, e.hidden, True, True))
        return Grade("solutions", results=results)

    assert points_drift(grade()) == []
    last = EXERCISES[-1]
    drifted = grade()
    drifted.results[-1].max_points += 1
    assert points_drift(drifted) == [f"{last.id}: the hidden checks are worth {last.hidden + 1}, the table says {last.hidden}"]
    assert len(points_drift(Grade("solutions", results=[]))) == 2 * len(EXERCISES)


def test_every_earlier_exercise_has_the_graders_module():
    """What a later exercise imports from an earlier one is the grader's: every
    exercise but the last (which none imports) has a module offering its row's
    ``defines`` (tests/unit/test_earlier_standins.py holds them to the stubs)."""
    for e in EXERCISES[:-1]:
        assert e.defines, f"{e.id}: the table says nothing it defines"
        mod = standins.earlier_module(e, ask=lambda *question: None)
        assert mod is not None and all(hasattr(mod, name) for name in e.defines), f"{e.id}: no stand-in in grader/child/standins.py for some of {e.defines}"


@pytest.mark.parametrize("ex", IDS)
def test_every_exercise_has_its_files(ex):
    """The solution, its stub and its docs page (the docs' toctrees list the
    table; a page not written yet fails the build too). Its answer page in the
    teacher edition is written by the build (docs/_ext/answer_pages.py)."""
    for path in (f"solutions/{ex}.py", f"exercises/{ex}.py", f"docs/path/{ex}.md"):
        assert (ROOT / path).is_file(), f"{ex} is in grader/exercises.py but {path} is missing"


# --- counts in prose -------------------------------------------------------------

# How the course counts itself in prose ("Seven short PyTorch exercises",
# "七道 PyTorch 小练习", "七步 · Seven steps"); "the next three exercises"
# counts something else.
COUNT_EN = re.compile(r"\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+(?:short\s+PyTorch\s+exercises|steps)\b", re.I)
COUNT_ZH = re.compile(r"([二三四五六七八九十两]+|\d+)\s*(?:道\s*PyTorch|步)")


def counts_in(text: str) -> list[str]:
    return [m.group(1).lower() for m in COUNT_EN.finditer(text)] + [m.group(1) for m in COUNT_ZH.finditer(text)]


def test_count_words():
    assert (count_zh(8), count_en(8), count_zh(12), count_zh(20), count_zh(10)) == ("八", "eight", "十二", "二十", "十")
    assert counts_in("Seven short PyTorch exercises; 七道 PyTorch 小练习；七步 · Seven steps; 一道练习 / one exercise") == ["seven", "seven", "七", "七"]
    assert counts_in("接下来的三道练习 / the next three exercises") == []


def test_readme_lists_the_table():
    """README.md is not built: its count of exercises, where it gives one,
    and its table of ids are the table's."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    intro = text.split("\n## ", 1)[0]
    assert set(counts_in(intro)) <= {count_en(), count_zh()}, f"README.md counts {counts_in(intro)} exercises; grader/exercises.py has {len(IDS)}"
    listed = re.findall(r"^\| `(ex\d+_\w+)` \|", intro, flags=re.M)
    assert listed == list(IDS), f"README.md's table lists {listed}; grader/exercises.py has {list(IDS)}"


def _docs_and_grader():
    docs = [p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts]
    return docs + sorted((ROOT / "grader").rglob("*.py"))


@pytest.mark.parametrize("path", _docs_and_grader(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_count_of_exercises_typed_by_hand(path):
    """The docs compute the count ({num}) and the grader writes it from the
    table (count_zh, count_en): a number typed there would drift."""
    text = path.read_text(encoding="utf-8")
    assert not counts_in(text), f"{path.relative_to(ROOT)} types a count of exercises: {counts_in(text)}"


def test_the_rows_methods_are_of_classes_they_define():
    """``methods`` names ``Class.method`` of a class of the row's ``defines``
    (the degenerate and unseen-input tests answer it)."""
    for e in EXERCISES:
        for name in e.methods:
            cls, _, method = name.partition(".")
            assert method and cls in e.defines and cls[:1].isupper(), f"{e.id}: methods names {name!r}, not Class.method of a class it defines"
