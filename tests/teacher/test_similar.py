"""Suspiciously alike submissions (``grader/teacher/report/similar.py``, ``python -m grader
similar``): a disguised copy is found; independent correct work, untouched
stubs and the example class's honest students are not; what students name
and write is escaped; bad input neither crashes nor passes unseen.

The threshold's margins are measured here: a disguised copy scores 0.95
(hugo, the example's copy, 0.98), the closest independent students 0.29.
"""

import ast
import difflib
import glob
import io
import json
import os
import re
import tokenize

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, run_cli

from grader.exercises import IDS
from grader.teacher.intake import submissions
from grader.teacher.report import similar

EXAMPLES = os.path.join(ROOT, "examples", "submissions")
RIGHT = os.path.join(ROOT, "tests", "catalogue", "right")
HOSTILE_ID = "<script>alert(1)</script>"
HOSTILE_LINE = '    note = "</pre><script>alert(2)</script>"  # </details>\n'


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _student(folder: str) -> dict:
    return {ex: _read(os.path.join(folder, ex + ".py")) for ex in IDS}


def _without_markers(source: str) -> str:
    return re.sub(r"[ \t]*# (BEGIN|END) SOLUTION\n", "", source)


def _write(folder, files: dict) -> str:
    os.makedirs(folder, exist_ok=True)
    for ex, text in files.items():
        with open(os.path.join(folder, ex + ".py"), "w", encoding="utf-8") as f:
            f.write(text)
    return str(folder)


def catalogue_students() -> dict:
    """Independent correct students: student j hands in the j-th variant of
    tests/catalogue/right/ for every exercise that has one, and the reference
    solution for the rest. No two students share a variant, so nobody copied
    anybody; what they share is what the course gave them (stubs, reference)
    and what the exercises dictate. Variants that paste a sibling exercise's
    classes into the file are left out: they paste the same code (one
    template, written by one author), so two of them are not independent."""
    variants = {ex: sorted(p for p in glob.glob(os.path.join(RIGHT, ex + "__*.py")) if "__pasted" not in p) for ex in IDS}
    reference = {ex: _without_markers(_read(os.path.join(SOLUTIONS, ex + ".py"))) for ex in IDS}
    count = max(len(v) for v in variants.values())
    return {f"right{j}": {ex: _read(variants[ex][j]) if j < len(variants[ex]) else reference[ex] for ex in IDS} for j in range(count)}


def disguise(source: str) -> str:
    """What a copier does to a file: every local name renamed, the top-level
    functions and classes in reverse order, a comment on every statement,
    and the spacing changed (tokenize's own layout)."""
    tree = ast.parse(source)
    local = {n.id for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    lines = source.splitlines(keepends=True)
    head = "".join(lines[: defs[0].lineno - 1])
    chunks = ["".join(lines[d.lineno - 1 : d.end_lineno]) for d in defs]
    reordered = head + "\n\n".join(reversed(chunks))
    out, previous = [], None
    for tok in tokenize.generate_tokens(io.StringIO(reordered).readline):
        kind, text = tok.type, tok.string
        if kind == tokenize.NAME and text in local and previous != ".":
            text = "my_" + text.lower() + "_var"
        if kind == tokenize.NEWLINE and previous not in (None, ":"):
            out.append((tokenize.COMMENT, "# done here"))
        out.append((kind, text))
        previous = tok.string if kind not in (tokenize.NL, tokenize.COMMENT) else previous
    return tokenize.untokenize(out)


# ------------------------------------------------------------ the scores


def test_a_disguised_copy_is_flagged():
    grace = _student(os.path.join(EXAMPLES, "grace"))  # her own code, not the reference's
    copy = {ex: disguise(src) for ex, src in grace.items()}
    for ex in IDS:
        ast.parse(copy[ex])  # still Python, and the code that is not the stub's reads differently
        stub = set(_read(os.path.join(EXERCISES, ex + ".py")).splitlines())
        own = ["\n".join(line for line in s.splitlines() if line not in stub) for s in (grace[ex], copy[ex])]
        assert difflib.SequenceMatcher(None, *own).ratio() < 0.6, ex
    codes = {"grace": grace, "copier": copy, **catalogue_students()}
    data = similar.compare(codes)
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("copier", "grace")]
    pair = data["pairs"][0]
    assert pair["score"] > 0.9
    # The long exercises carry the score; every exercise is listed with its own.
    assert {e["exercise"] for e in pair["exercises"]} == set(IDS)
    assert pair["exercises"][0]["exercise"] == "ex6_block"


def test_independent_correct_students_are_not_flagged():
    students = catalogue_students()
    assert len(students) >= 5
    assert similar.compare(students)["pairs"] == []
    # The margin: the closest independent pair (0.24 when this was written) stays well under the threshold.
    highest = similar.compare(students, threshold=0.0)["pairs"][0]["score"]
    assert 0 < highest < 0.6 * similar.THRESHOLD


def test_the_reference_and_the_stubs_are_discounted():
    """Students who hand in the reference (they followed the lecture) or the
    untouched stubs share no own code at all: not even at threshold 0."""
    stubs = {ex: _read(os.path.join(EXERCISES, ex + ".py")) for ex in IDS}
    reference = {ex: _read(os.path.join(SOLUTIONS, ex + ".py")) for ex in IDS}
    data = similar.compare({"s1": stubs, "s2": dict(stubs), "r1": reference, "r2": dict(reference)}, threshold=0.0)
    assert data["pairs"] == [] and data["pairs_over_threshold"] == 0


def test_one_long_exercise_copied_is_enough_but_a_short_one_is_not():
    """The score is the larger of the whole submission's and each exercise's,
    each over at least MIN_TOKENS: ex6 copied alone is found, a copied ex4
    (a few lines, where many write alike) alone is not."""
    grace = _student(os.path.join(EXAMPLES, "grace"))
    others = catalogue_students()  # their own work for the other exercises
    codes = {
        "grace": grace,
        "ex6_copied": {**others["right1"], "ex6_block": disguise(grace["ex6_block"])},
        "ex4_copied": {**others["right2"], "ex4_masking": disguise(grace["ex4_masking"])},
    }
    data = similar.compare(codes)
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("ex6_copied", "grace")]
    every = {(p["a"], p["b"]): p for p in similar.compare(codes, threshold=0.0)["pairs"]}
    ex4 = every["ex4_copied", "grace"]
    assert ex4["exercises"][0]["score"] > 0.9 and ex4["score"] < similar.THRESHOLD


def test_repeated_lines_all_count():
    """The boilerplate is taken out without copydetect's own way, which also
    drops all but the last of repeated k-grams (three alike nn.Linear lines)."""
    code = _read(os.path.join(EXAMPLES, "grace", "ex5_head.py"))
    unrelated = {12345}
    assert similar._fingerprint(code, unrelated).token_coverage == similar._fingerprint(code, set()).token_coverage
    import copydetect
    import numpy as np

    theirs = copydetect.CodeFingerprint("x.py", similar.NOISE, 1, np.array([12345]), language="python", fp=io.StringIO(code))
    assert theirs.token_coverage < similar._fingerprint(code, set()).token_coverage  # the bug worked around


# ----------------------------------------------------------- the outputs


def _entries(base, students: dict) -> list:
    return [submissions.Entry(sid, _write(os.path.join(base, f"s{i}"), files)) for i, (sid, files) in enumerate(students.items())]


def test_hostile_ids_and_code_are_escaped(tmp_path):
    grace = _student(os.path.join(EXAMPLES, "grace"))
    # The hostile line inside code both share, so it is shown.
    grace["ex6_block"] = grace["ex6_block"].replace("        return self.net(x)\n", "        return self.net(x)\n" + HOSTILE_LINE.replace("    ", "        ", 1))
    entries = _entries(tmp_path / "class", {HOSTILE_ID: grace, "x|`*_[y](z)": {ex: disguise(s) for ex, s in grace.items()}})
    out = tmp_path / "out"
    data = similar.write(entries, str(out))
    assert len(data["pairs"]) == 1
    page = (out / similar.HTML_NAME).read_text(encoding="utf-8")
    assert "alert(2)" in page  # the line is shown...
    for raw in ("<script>", "</pre><script>", "</script>", "</details>\n"):
        assert raw not in page, raw  # ...and no id or code turns into markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;/pre&gt;&lt;script&gt;alert(2)" in page
    md = similar.markdown_section(json.loads((out / similar.JSON_NAME).read_text(encoding="utf-8")))
    assert "<script>" not in md and "\\<script\\>" in md
    assert "x\\|\\`\\*\\_\\[y\\](z)" in md


def test_page_and_section(tmp_path):
    grace = _student(os.path.join(EXAMPLES, "grace"))
    entries = _entries(tmp_path / "class", {"grace": grace, "hugo": _student(os.path.join(EXAMPLES, "hugo"))})
    data = similar.write(entries, str(tmp_path / "out"))
    section = similar.html_section(data)
    for text in ("相似的提交 / Similar submissions", "不是结论", "not a verdict", "0.5", "<details>", "<mark>", "grace", "hugo", "ex6_block"):
        assert text in section, text
    assert section.count('class="side"') == len(data["pairs"][0]["exercises"])
    page = (tmp_path / "out" / similar.HTML_NAME).read_text(encoding="utf-8")
    assert section in page
    assert "size: A4" in page
    assert not re.search(r"https?:|<link|<script|@import|src=", page)  # nothing fetched, nothing run
    md = similar.markdown_section(data)
    assert md.startswith("## 相似的提交 / Similar submissions") and "not a verdict" in md
    assert "<mark>" not in md and re.search(r"ex6_block 0\.\d\d: grace 行 / lines \d+", md)
    # A pair's shared lines are the student's own code, not the stub's docstring.
    first = data["pairs"][0]["exercises"][0]["a"]
    marked = [text for _, text, cols in first["excerpt"] if cols]
    assert marked and not any('"""' in line for line in marked)
    # Nothing shown when nothing is alike.
    empty = similar.compare({"a": grace})
    assert "No pair reaches the threshold" in similar.html_section(empty) and "No pair" in similar.markdown_section(empty)


# ------------------------------------------------------ the command line


def test_examples_only_grace_and_hugo(tmp_path):
    before = sorted(os.walk(EXAMPLES))
    out = tmp_path / "out"
    proc = run_cli("similar", EXAMPLES, "--out", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((out / similar.JSON_NAME).read_text(encoding="utf-8"))
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("grace", "hugo")]
    assert data["students"] == 8 and data["not_compared"] == []  # frank.zip and dana's nested folder were read
    assert "1" in proc.stdout and similar.HTML_NAME in proc.stdout and len(proc.stdout.strip().splitlines()) == 1
    assert sorted(os.listdir(out)) == [similar.HTML_NAME, similar.JSON_NAME]  # the work folder is gone
    assert sorted(os.walk(EXAMPLES)) == before
    # Python salts its string hashes per process: the findings must not depend on it.
    again = run_cli("similar", EXAMPLES, "--out", str(tmp_path / "again"), timeout=300)
    assert (tmp_path / "again" / similar.JSON_NAME).read_text(encoding="utf-8") == (out / similar.JSON_NAME).read_text(encoding="utf-8"), again.stderr


def test_top_caps_the_pairs_shown(tmp_path):
    grace = _student(os.path.join(EXAMPLES, "grace"))
    for i in range(6):
        _write(tmp_path / "class" / f"copy{i}", grace)
    proc = run_cli("similar", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--top", "3", timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out" / similar.JSON_NAME).read_text(encoding="utf-8"))
    assert data["pairs_over_threshold"] == 15 and len(data["pairs"]) == 3
    assert (tmp_path / "out" / similar.HTML_NAME).read_text(encoding="utf-8").count('class="pair"') == 3
    assert "15" in proc.stdout and "3" in proc.stdout


def test_bad_input_does_not_crash(tmp_path):
    grace = _student(os.path.join(EXAMPLES, "grace"))
    cls = tmp_path / "class"
    _write(cls / "grace", grace)
    _write(cls / "few", {"ex0_weighted_sum": grace["ex0_weighted_sum"]})  # the other files missing
    _write(cls / "odd", {"ex5_head": "\ufeff\x00 def (((\n", "ex6_block": ""})  # not Python, empty
    (cls / "odd" / "ex1_averaging.py").write_bytes(b"x = '\xff\xfe'\n")  # not UTF-8
    os.symlink(os.path.join(EXAMPLES, "hugo", "ex6_block.py"), cls / "few" / "ex6_block.py")  # not followed
    (cls / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    proc = run_cli("similar", str(cls), "--out", str(tmp_path / "out"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out" / similar.JSON_NAME).read_text(encoding="utf-8"))
    assert data["students"] == 3 and data["pairs"] == []  # the symbolic link to hugo's copy was not read
    assert [s["id"] for s in data["not_compared"]] == ["broken"] and "zip" in data["not_compared"][0]["note"]
    assert "broken" in (tmp_path / "out" / similar.HTML_NAME).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args, says",
    [
        (["{tmp}/nowhere", "--out", "{tmp}/out"], ["找不到文件夹", "no such folder"]),
        (["{cls}", "--out", "{cls}/out"], ["--out 不能在 DIR 之内", "--out must not be inside DIR"]),
        (["{cls}", "--out", "{cls}"], ["--out must not be inside DIR"]),
        (["{cls}", "--out", "{tmp}/out", "--threshold", "1.5"], ["--threshold 应在 0 到 1 之间", "between 0 and 1"]),
        (["{cls}", "--out", "{tmp}/out", "--threshold", "-0.1"], ["between 0 and 1"]),
        (["{cls}", "--out", "{tmp}/out", "--top", "0"], ["--top must be at least 1"]),
    ],
)
def test_usage_errors(tmp_path, args, says):
    cls = tmp_path / "class"
    _write(cls / "grace", _student(os.path.join(EXAMPLES, "grace")))
    before = sorted(os.walk(tmp_path))
    proc = run_cli("similar", *(a.format(tmp=tmp_path, cls=cls) for a in args), timeout=60)
    assert proc.returncode == 2
    for text in says:
        assert text in proc.stderr
    assert "Traceback" not in proc.stderr and sorted(os.walk(tmp_path)) == before  # nothing written
