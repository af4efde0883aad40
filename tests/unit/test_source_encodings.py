"""Exercise files are read as Python reads them (PEP 263, ``tokenize.open``):
UTF-8, or what a coding line in the first two lines says. A file that runs
under ``python`` earns its points; one that Python itself cannot read gets 0
for that exercise with a clear message, and nothing else is affected."""

import pytest
from conftest import SOLUTIONS, make_submission

from grader.handin import submission as submission_mod


def _solution(ex: str) -> str:
    with open(f"{SOLUTIONS}/{ex}.py", encoding="utf-8") as f:
        return f.read()


# (exercise, bytes of the file): each runs under `python` as it is.
RIGHT = {
    # Chinese Windows editors still write GBK, with an Emacs-style coding line.
    "gbk_emacs_line": ("ex0_weighted_sum", lambda src: ("# -*- coding: gbk -*-\n# 加权求和\n" + src).encode("gbk")),
    # The plain form, on the second line after a shebang, another Chinese encoding.
    "gb18030_second_line": ("ex1_averaging", lambda src: ("#!/usr/bin/env python3\n# coding=gb18030\n# 平均矩阵\n" + src).encode("gb18030")),
    # Vim's form, a European encoding.
    "latin1_vim_line": ("ex3_scaling", lambda src: ("# vim: set fileencoding=latin-1 :\n# Skalierung für Aufmerksamkeit\n" + src.encode("ascii", "replace").decode()).encode("latin-1")),
}
# (exercise, bytes, words of the message)
WRONG = {
    "gbk_without_coding_line": ("ex2_scores", lambda src: ("# 点积\n" + src).encode("gbk"), ["not UTF-8", "coding: gbk"]),
    "unknown_coding": ("ex4_masking", lambda src: ("# -*- coding: klingon -*-\n" + src).encode("utf-8"), ["coding line", "unknown encoding: klingon"]),
    "declared_gbk_but_is_not": ("ex5_head", lambda src: ("# -*- coding: gbk -*-\n# \x80\n" + src).encode("latin-1", "replace"), ["declares the coding gbk"]),
    # Codecs that decode to half of a UTF-16 pair (a lone surrogate), which
    # Python can neither compile nor write as UTF-8: a note, never a crash.
    "utf7_lone_surrogate": ("ex6_block", lambda src: ("# coding: utf-7\n" + src + "\nMARK = '\ud800'\n").encode("utf-7"), ["lone surrogate, U+D800", "落单的代理字符", "line "]),
    "unicode_escape_lone_surrogate": (
        "ex7_gpt",
        lambda src: b"# -*- coding: unicode_escape -*-\n" + src.encode("unicode_escape") + b"\n# \\udfff\n",
        ["lone surrogate, U+DFFF"],
    ),
}


def _write(folder, cases):
    make_submission(folder)
    for name, (ex, make, *_) in cases.items():
        (folder / f"{ex}.py").write_bytes(make(_solution(ex)))


@pytest.fixture(scope="module")
def graded(grader, tmp_path_factory):
    folder = tmp_path_factory.mktemp("encodings") / "sub"
    _write(folder, {**RIGHT, **WRONG})
    return grader.grade(str(folder))


@pytest.mark.parametrize("case", sorted(RIGHT))
def test_a_coding_line_python_honours_earns_full_marks(graded, case):
    ex = RIGHT[case][0]
    got, most = graded.exercise_points(ex)
    assert got == most > 0, [r.feedback for r in graded.results if r.exercise == ex and not r.passed][:1]


@pytest.mark.parametrize("case", sorted(WRONG))
def test_a_file_python_cannot_read_gets_0_and_says_why(graded, case):
    ex, _, words = WRONG[case]
    results = [r for r in graded.results if r.exercise == ex]
    assert results and all(r.points == 0 for r in results)
    for word in words:
        assert all(word in r.feedback for r in results), (word, results[0].feedback)


def test_nothing_else_is_affected(graded):
    touched = {ex for ex, *_ in list(RIGHT.values()) + list(WRONG.values())}
    for ex in {r.exercise for r in graded.results} - touched:
        got, most = graded.exercise_points(ex)
        assert got == most, ex


def test_python_source_reads_as_python_does():
    assert submission_mod.python_source("# -*- coding: gbk -*-\nx = '注意'\n".encode("gbk")) == "# -*- coding: gbk -*-\nx = '注意'\n"
    assert submission_mod.python_source("\ufeffx = 1\n".encode("utf-8")) == "x = 1\n"  # a byte-order mark is not code
    with pytest.raises(UnicodeDecodeError):
        submission_mod.python_source("x = '注意'\n".encode("gbk"))
    with pytest.raises(SyntaxError):
        submission_mod.python_source(b"# coding: klingon\nx = 1\n")
