"""The teaching page's tables of mistakes (docs/_ext/mistake_table.py) and the
catalogue they are made from.

(a) every catalogue file of wrong/ and uncaught/ says its mistake in English
    and in Chinese, a docstring line ``zh: ...`` under the English one; a file
    without that line is refused (the build warns, and it runs with -W);
(b) every file of tests/catalogue/uncaught/ scores full marks with the
    teacher's checks: with the inputs as written (what the page's build
    grades), with the tests' own and with fresh ones. So the page's list of
    mistakes no check catches stays true; a file that starts losing points
    belongs in tests/catalogue/wrong/;
(c) each of those files is a real mistake: beside the reference it goes wrong
    the way its docstring says (``DEMONSTRATED``, one check per file, run in a
    process of its own so that the reference's modules stay out of this one);
(d) the built teacher page: every table has the columns “points lost” and
    “what the grader names”, shows each mistake in Chinese and English, with
    the points it loses and the diagnoses in its feedback as the grader gives
    them, and the uncaught files are listed.
"""

import html
import re
import subprocess
import sys
from pathlib import Path

import docs_site  # noqa: F401 - first: it puts docs/_ext on the path, for mistake_table
import mistake_table  # docs/_ext
import pytest
from conftest import SOLUTIONS, make_submission
from docs_site import built_site

from grader.exercises import BY_ID, IDS
from grader.teacher.report.class_data import one_mistake

CATALOGUE = Path(__file__).resolve().parents[1] / "catalogue"
WRONG = sorted((CATALOGUE / "wrong").glob("*.py"))
UNCAUGHT = sorted((CATALOGUE / "uncaught").glob("*.py"))
_CJK = re.compile("[\u3400-\u9fff]")


def exercise_of(path: Path) -> str:
    return path.stem.split("__")[0]


# --- (a) the Chinese line ----------------------------------------------------


@pytest.mark.parametrize("path", WRONG + UNCAUGHT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_catalogue_file_says_its_mistake_in_both_languages(path):
    en, zh = mistake_table.describe(path)
    assert en and not _CJK.search(en), f"{path.name}: the first line is the English one: {en!r}"
    assert _CJK.search(zh), f"{path.name}: the zh line is not Chinese: {zh!r}"
    assert zh != en


@pytest.mark.parametrize(
    "docstring",
    [
        '"""ex0 mistake: no softmax."""',
        '"""ex0 mistake: no softmax.\nzh: \n"""',
        '"""ex0 mistake: no softmax.\nzh: no softmax either\n"""',
        '"""ex0 mistake: no softmax.\n没有做 softmax。\n"""',
    ],
    ids=["english only", "empty zh line", "zh line in English", "no zh: label"],
)
def test_a_file_without_its_chinese_line_is_refused(tmp_path, docstring):
    path = tmp_path / "ex0_weighted_sum__no_softmax.py"
    path.write_text(docstring + "\nimport torch\n", encoding="utf-8")
    with pytest.raises(mistake_table.NoChinese, match="zh: "):
        mistake_table.describe(path)


def test_the_folders_do_not_share_a_name():
    """The grading script finds a file by its name in wrong/, then uncaught/."""
    assert UNCAUGHT, "tests/catalogue/uncaught/ is empty: the page's table would be too"
    assert not {p.name for p in WRONG} & {p.name for p in UNCAUGHT}
    for path in UNCAUGHT:
        assert exercise_of(path) in IDS and "__" in path.stem, path.name


# --- (b) no check catches the uncaught ones ----------------------------------


def full_marks_or_why(grade, exercise: str) -> str:
    """'' if the exercise scored full marks, else what failed."""
    assert not grade.errors, grade.errors
    got, most = grade.exercise_points(exercise)
    failed = [r.check_id + (" [hidden]" if r.hidden else "") for r in grade.results if not r.passed]
    return "" if got == most and not failed else f"{got}/{most}, failed: {failed}"


@pytest.fixture(scope="module")
def graders():
    """The inputs as written (the page's build), and fresh ones (a teacher's grading)."""
    from grader.engine.grading import Grader

    made = {"as written": Grader(sandbox="off", inputs_seed=0), "fresh": Grader(sandbox="off")}
    yield made
    for g in made.values():
        g.close()


@pytest.mark.parametrize("path", UNCAUGHT, ids=lambda p: p.stem)
def test_no_check_catches_an_uncaught_mistake(path, grader, graders, tmp_path):
    ex = exercise_of(path)
    folder = make_submission(tmp_path, {ex: path.read_text(encoding="utf-8")})
    for name, g in [("the tests' inputs", grader), *graders.items()]:
        why = full_marks_or_why(g.grade(folder, only=ex), ex)
        assert not why, f"{path.name} loses points with {name} ({why}): a check catches it now, so it belongs in tests/catalogue/wrong/ (and the teaching page stops listing it)"


# --- (c) they are mistakes all the same ---------------------------------------

DEMONSTRATED = {
    # A past score of 89 overflows exp in float32; the reference subtracts the max.
    "ex4_masking__softmax_without_the_max": """
scores = torch.tensor([[0.0, 0.0], [89.0, 0.0]])
assert torch.isnan(wrong.causal_weights(scores)).any()
assert torch.allclose(right.causal_weights(scores), torch.tensor([[1.0, 0.0], [1.0, 0.0]]))
""",
    # The meta device stands in for a GPU: the tril stays behind on the CPU.
    "ex5_head__mask_not_a_buffer": """
x = torch.randn(1, 3, 4, device="meta")
assert right.Head(4, 2, 8).to("meta")(x).device.type == "meta"
head = wrong.Head(4, 2, 8).to("meta")
assert head.tril.device.type == "cpu"
try:
    head(x)
except RuntimeError:
    pass
else:
    raise AssertionError("forward worked on another device")
""",
    # Two seeds, one text.
    "ex7_gpt__seeded_generate": """
def texts(m):
    torch.manual_seed(0)
    model = m.GPT(10, 8, 2, 1, 4).eval()
    out = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        out.append(model.generate(torch.zeros(1, 1, dtype=torch.long), 12).tolist())
    return out
seeded, reference = texts(wrong), texts(right)
assert seeded[0] == seeded[1] and reference[0] != reference[1], (seeded, reference)
""",
    # Training mode is gone after a sample.
    "ex7_gpt__generate_leaves_eval_mode": """
for m, training in ((wrong, False), (right, True)):
    model = m.GPT(10, 8, 2, 1, 4, dropout=0.1).train()
    model.generate(torch.zeros(1, 1, dtype=torch.long), 2)
    assert all(part.training is training for part in model.modules()), m
""",
}

DEMO = """
import importlib, importlib.util, sys
import torch
sys.path.insert(0, {solutions!r})
spec = importlib.util.spec_from_file_location("catalogue_file", {path!r})
wrong = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wrong)
right = importlib.import_module({exercise!r})
"""


def test_every_uncaught_mistake_is_demonstrated():
    assert sorted(DEMONSTRATED) == [p.stem for p in UNCAUGHT]


@pytest.mark.parametrize("path", UNCAUGHT, ids=lambda p: p.stem)
def test_an_uncaught_mistake_goes_wrong(path):
    assert path.stem in DEMONSTRATED, f"{path.name}: add to DEMONSTRATED how it goes wrong"
    script = DEMO.format(solutions=str(SOLUTIONS), path=str(path), exercise=exercise_of(path)) + DEMONSTRATED[path.stem]
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{path.name} did not go wrong as shown:\n{proc.stderr[-3000:]}"


# --- (d) the page -------------------------------------------------------------


@pytest.fixture(scope="module")
def teaching(tmp_path_factory) -> str:
    return (built_site("teacher", tmp_path_factory) / "teachers" / "teaching.html").read_text(encoding="utf-8")


def tables(page: str) -> list[str]:
    return re.findall(r'<table class="[^"]*\bmistake-table\b.*?</table>', page, flags=re.S)


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def rows(table: str) -> dict[str, list[str]]:
    """A table's body rows, as HTML cells, by the code that names the row:
    the mistake's name, or in the uncaught table exercise__name."""
    out = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        names = re.findall(r'<code class="docutils literal notranslate(?: mistake-name)?"><span class="pre">(.*?)</span></code>', "".join(cells))
        out["__".join(name.replace("<wbr>", "") for name in names)] = cells
    return out


def in_language(cell: str, lang: str) -> list[str]:
    """The texts of a cell's blocks in one language ("zh-CN" or "en")."""
    return [text(t) for t in re.findall(rf'<div class="lang-{lang[:2]}" lang="{lang}">(.*?)</div>', cell, flags=re.S)]


def phrases(fragment: str) -> list[str]:
    """The inline phrases of both languages, "中文 / English", as the site shows them side by side."""
    zh = re.findall(r'<span class="lang-zh" lang="zh-CN">(.*?)</span>', fragment, flags=re.S)
    en = re.findall(r'<span class="lang-en" lang="en">(.*?)</span>', fragment, flags=re.S)
    assert len(zh) == len(en), fragment
    return [f"{text(a)} / {text(b)}" for a, b in zip(zh, en)]


def check_names(cell: str) -> list[str]:
    return [name.replace("<wbr>", "") for name in re.findall(r'check-name"><span class="pre">(.*?)</span>', cell)]


def by_exercise(page: str) -> dict[str, str]:
    found = {}
    for table in tables(page):
        caption = text(re.search(r"<caption>(.*?)</caption>", table, flags=re.S).group(1))
        found[caption.split()[0]] = table
    return found


def test_every_exercise_has_a_table_with_the_four_columns(teaching):
    found = by_exercise(teaching)
    assert set(IDS) <= set(found), sorted(found)
    for ex in IDS:
        heads = [phrase for h in re.findall(r"<th[^>]*>(.*?)</th>", found[ex], flags=re.S) for phrase in phrases(h)]
        assert heads == ["错误 / mistake", "丢的分 / points lost", "抓住它的检查 / checks that catch it", "评分程序说出的错误 / what the grader names"], heads


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_a_mistake_is_shown_in_chinese_and_english(path, teaching):
    ex, name = path.stem.split("__", 1)
    cells = rows(by_exercise(teaching)[ex])[name]
    en, zh = mistake_table.describe(path)
    assert in_language(cells[0], "zh-CN") == [zh] and in_language(cells[0], "en") == [en], cells[0]


# Rows whose numbers the test works out itself: one that loses everything and is
# named nowhere, one named by two checks, one that loses part of its points.
GRADED_ROWS = ["ex5_head__linear_with_bias", "ex5_head__scaled_by_n_embd", "ex4_masking__minus_1e9"]


@pytest.mark.parametrize("stem", GRADED_ROWS)
def test_points_lost_and_diagnoses_are_the_graders(stem, teaching, graders, tmp_path):
    ex, name = stem.split("__", 1)
    path = CATALOGUE / "wrong" / f"{stem}.py"
    grade = graders["as written"].grade(make_submission(tmp_path, {ex: path.read_text(encoding="utf-8")}), only=ex)
    assert not grade.errors, grade.errors
    got, most = grade.exercise_points(ex)
    assert most == BY_ID[ex].points
    cells = rows(by_exercise(teaching)[ex])[name]
    assert text(cells[1]) == f"{most - got:g}"
    failed = [r for r in grade.results if not r.passed]
    if len(failed) == len(grade.results):
        assert phrases(cells[2]) == [f"全部 {len(failed)} 项检查 / all {len(failed)} checks"]
    else:
        public_first = sorted(failed, key=lambda r: r.hidden)
        assert check_names(cells[2]) == [r.check_id for r in public_first]
        assert phrases(cells[2]) == ["隐藏 / hidden"] * sum(r.hidden for r in failed)
    # One mistake per file, as the class report counts it: the one most of its failing checks name.
    named = [(r.diagnosis.zh, r.diagnosis.en) for r in sorted(failed, key=lambda r: r.hidden) if r.diagnosis]
    if named:
        zh, en = one_mistake(named)
        assert in_language(cells[3], "zh-CN") == [zh] and in_language(cells[3], "en") == [en]
        if stem == "ex5_head__scaled_by_n_embd":
            assert len({d for d in named}) == 2  # two checks quote the input differently: still one mistake
    else:
        assert text(cells[3]) == "—"


def test_the_uncaught_mistakes_are_listed(teaching):
    listed = [t for t in tables(teaching) if "uncaught-table" in t.split(">")[0]]
    assert len(listed) == 1
    shown = rows(listed[0])
    assert sorted(shown) == [p.stem for p in UNCAUGHT]
    for path in UNCAUGHT:
        cells = shown[path.stem]
        en, zh = mistake_table.describe(path)
        assert text(cells[0]) == exercise_of(path)
        assert in_language(cells[1], "zh-CN") == [zh] and in_language(cells[1], "en") == [en]
