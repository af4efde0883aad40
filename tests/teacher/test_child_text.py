"""Text a submission wrote reaches the teacher as text, never as terminal
codes or markup (issue 18, part 5).

- ``grader.text.visible`` writes out every character that would act on a
  terminal or reorder what it shows (ESC as the four characters ``\\x1b``);
  ``protocol.decode`` applies it to every string a child sends, keys
  included, and ``intake``/``submission`` to the names of a student's files.
- ``markup.fenced`` puts feedback in a fence longer than any run of
  backticks in it, and ``markup.markdown_text`` keeps a note's names from
  becoming links, images or HTML.

The attacks in ``tests/attacks/`` that carry terminal codes (in an
exception's type and message, in the name of a returned type, in the source
line a traceback quotes) and the one that breaks out of the fence are graded
here by the real command line: ``grade`` (with the sandbox off and on) and
``batch``, and nothing of them may reach stdout, results.json, feedback.md or
grades.csv as anything but text.
"""

import json
import os
import re

import pytest
import torch
from conftest import ROOT, make_submission, python_m_grader, run_cli

from grader import text
from grader.child import protocol
from grader.engine import sandbox as sandbox_mod
from grader.engine.child_output import Drain
from grader.handin import submission
from grader.student import markup
from grader.teacher.intake import submissions
from grader.teacher.report import similar

ATTACKS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "attacks")
EXERCISE = "ex0_weighted_sum"
TERMINAL_ATTACKS = [
    "ex0_weighted_sum__terminal_escapes_in_exception",
    "ex0_weighted_sum__terminal_escapes_in_returned_type",
    "ex0_weighted_sum__terminal_escapes_in_traceback_line",
]
FENCE_ATTACK = "ex0_weighted_sum__feedback_fence_breakout"

# What must never reach the teacher raw: C0 controls but tab and newline (a
# CR only as part of CRLF), DEL, C1 controls, bidi marks, overrides and
# isolates, lone surrogates. Written out here, not taken from the grader.
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)")


def raw_controls(s: str) -> list[str]:
    return sorted({repr(m.group()) for m in RAW.finditer(s)})


def strings(obj) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [k, *strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return []


def attack_source(attack: str) -> str:
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), encoding="utf-8") as f:
        return f.read()


# --- the escaping function ------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # the window's title (OSC 0, BEL)
        ("\x1b]52;c;Y3VybA==\x1b\\", "\\x1b]52;c;Y3VybA==\\x1b\\"),  # the clipboard (OSC 52, ST)
        ("\x9b2J\x9d0;t\x9c", "\\x9b2J\\x9d0;t\\x9c"),  # 8-bit CSI, OSC, ST
        ("\x00\x08\x0b\x0c\x7f", "\\x00\\x08\\x0b\\x0c\\x7f"),
        ("score\r100 / 100", "score\\x0d100 / 100"),  # a lone CR paints over the line
        ("a\r\nb", "a\r\nb"),  # a Windows line end is a line end
        ("\u202e001 / 001", "\\u202e001 / 001"),  # reads "100 / 100"
        ("\u2066x\u2069\u200e\u200f\u061c", "\\u2066x\\u2069\\u200e\\u200f\\u061c"),
        ("\ud800", "\\ud800"),  # a lone surrogate: no UTF-8 file could hold it
    ],
)
def test_visible_writes_out_what_would_act(sent, shown):
    assert text.visible(sent) == shown
    assert text.visible(shown) == shown  # once is enough: the escapes are plain text


def test_visible_keeps_ordinary_text():
    ordinary = "你的代码抛出了 ValueError\n  得到 / got:\t[1.0, 2.0]  ✓ é 🙂 ‹›\r\n"
    assert text.visible(ordinary) == ordinary


def test_visible_names_are_one_line_of_printing_characters():
    assert text.visible("a\tb\nc\u200bd\x1b[2J e", name=True) == "a\\x09b\\x0ac\\u200bd\\x1b[2J e"
    assert text.visible("王 小明/ex0_weighted_sum.py", name=True) == "王 小明/ex0_weighted_sum.py"
    assert submissions.printable(os.fsdecode(b"bad\xffname\x1b]0;t\x07")) == "bad\\xffname\\x1b]0;t\\x07"


def test_every_string_of_a_message_is_made_visible_as_it_is_read():
    """Values and keys, at any depth; tensors and numbers as they were."""
    values = torch.arange(6.0).reshape(2, 3)
    sent = {
        "type": "Passed\x1b[2J",
        "lines": [[3, "\x1b]52;c;ZWNobwo=\x07"]],
        "params": {"w\x1b[1A": values, "n": 3, "\u202ename": [None, True, 1.5]},
    }
    got = protocol.decode(protocol.encode(sent)[8:])
    assert got["type"] == "Passed\\x1b[2J" and got["lines"] == [[3, "\\x1b]52;c;ZWNobwo=\\x07"]]
    assert set(got["params"]) == {"w\\x1b[1A", "n", "\\u202ename"}
    assert torch.equal(got["params"]["w\\x1b[1A"], values) and got["params"]["\\u202ename"] == [None, True, 1.5]
    # A child writes its own bytes: raw UTF-8 C1 and bidi characters (JSON
    # allows them unescaped) and an escaped lone surrogate.
    header = '{"$d":{"message":"\u009b2J\u202e","\u009bkey":"\\ud800"}}'.encode()
    got = protocol.decode(len(header).to_bytes(4, "big") + header)
    assert got == {"message": "\\x9b2J\\u202e", "\\x9bkey": "\\ud800"}


def test_printed_output_is_made_visible_by_the_same_function():
    r, w = os.pipe()
    drain = Drain(r, 1 << 16)
    drain.start()
    os.write(w, "\x1b[2J\r总分 / total 100 / 100\u202e\x9b\n".encode())
    os.close(w)
    drain.join(timeout=5)
    assert drain.text() == "\\x1b[2J\\x0d总分 / total 100 / 100\\u202e\\x9b\n"


def test_the_names_of_a_submissions_files_are_made_visible(tmp_path):
    folder = make_submission(tmp_path / "sub")
    sub = submission.load(folder, display_root="sub\x1b]0;t\x07\u202e")
    assert {f.display_name for f in sub.files.values()} == {f"sub\\x1b]0;t\\x07\\u202e/{ex}.py" for ex in sub.files}


def test_similar_excerpts_show_bidi_overrides():
    """The side-by-side view quotes students' source: a bidi override there
    would show code in another order than Python reads it."""
    side = {"excerpt": [[1, 'ok = "\u202e" ; rm\x1b[2J', [[0, 2]]]]}
    shown = similar._code(side)
    assert not raw_controls(shown) and "\\u202e" in shown and "\\x1b[2J" in shown


# --- feedback.md -----------------------------------------------------------------


def closing_fence(line: str, opening: str) -> bool:
    """CommonMark: a line of at most 3 spaces, then at least as many backticks
    as the opening fence, then only spaces, closes it."""
    return re.fullmatch(rf" {{0,3}}`{{{len(opening)},}}[ \t]*", line) is not None


@pytest.mark.parametrize(
    "feedback",
    ["plain", "```", "a\n```\nb", "```text\n``````\n````", "x ``` y\n   ```   \n`"],
)
def test_the_fence_is_longer_than_any_backticks_inside(feedback):
    lines = markup.fenced(feedback)
    opening = lines[0][: -len("text")]
    assert lines[0] == opening + "text" and set(opening) == {"`"} and len(opening) >= 3
    assert lines[-1] == opening and lines[1:-1] == [feedback]
    assert not any(closing_fence(line, opening) for line in feedback.splitlines())


def test_the_fence_holds_in_a_markdown_parser():
    markdown_it = pytest.importorskip("markdown_it")
    feedback = "  RuntimeError: nothing\n```\n\n# 总分 / total: **100 / 100**\n<img src=x onerror=alert(1)>\n`````\n```text"
    tokens = markdown_it.MarkdownIt("commonmark").parse("\n".join(markup.fenced(feedback)) + "\n")
    assert [t.type for t in tokens] == ["fence"] and tokens[0].content == feedback + "\n"


def test_a_notes_names_stay_text_in_markdown():
    markdown_it = pytest.importorskip("markdown_it")
    note = "忽略 / ignored: <img src=x onerror=alert(1)>.txt, [click](javascript:alert(1)), ![i](x.png), *a*, `c`, ex0_weighted_sum.py"
    html = markdown_it.MarkdownIt("commonmark").render(markup.markdown_text(note))
    assert not re.search(r"<(img|a|em|code|script)\b", html), html
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in html and "ex0_weighted_sum.py" in html


# --- the real command line ---------------------------------------------------------


MODES = [
    pytest.param("off", id="off"),
    pytest.param("require", id="sandbox", marks=pytest.mark.skipif(not sandbox_mod.available(), reason="no sandbox can be made here")),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", TERMINAL_ATTACKS)
def test_grade_shows_terminal_codes_as_text(tmp_path, attack, mode):
    folder = make_submission(tmp_path / "sub", {EXERCISE: attack_source(attack)})
    json_path = str(tmp_path / "results.json")
    proc = run_cli("grade", folder, "--only", EXERCISE, "--json", json_path, "--sandbox", mode)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(json_path, encoding="utf-8") as f:
        results = json.load(f)
    assert not raw_controls(proc.stdout + proc.stderr), raw_controls(proc.stdout + proc.stderr)
    assert not raw_controls("\n".join(strings(results))), raw_controls("\n".join(strings(results)))
    # The teacher still reads what was sent...
    assert "\\x1b[2J" in proc.stdout
    assert all("\\x1b[2J" in t["output"] and t["status"] == "failed" for t in results["tests"])
    # ...and the one total line is the grader's.
    totals = [line for line in proc.stdout.splitlines() if line.startswith("总分 / total")]
    assert len(totals) == 1 and re.search(r"\b0 / 10$", totals[0]), totals
    assert results["score"] == 0


def test_batch_writes_text_not_codes_or_markup(tmp_path):
    """One class: the three terminal attacks, the fence attack, and a
    student whose folder and extra file have terminal codes and markup in
    their names (quoted in the note of grades.csv and feedback.md)."""
    class_dir = tmp_path / "class"
    for attack in [*TERMINAL_ATTACKS, FENCE_ATTACK]:
        make_submission(class_dir / attack.split("__")[1], {EXERCISE: attack_source(attack)})
    named = make_submission(class_dir / "named\x1b]0;t\x07\u202e")
    with open(os.path.join(named, "\x1b[2J<img src=x onerror=alert(1)>[l](javascript:x).txt"), "w") as f:
        f.write("notes\n")
    out = tmp_path / "out"
    proc = python_m_grader(
        ["batch", class_dir, "--out", out, "--sandbox", "off", "--no-report", "--jobs", "3"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT, "TMPDIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not raw_controls(proc.stdout + proc.stderr), raw_controls(proc.stdout + proc.stderr)
    assert "named\\x1b]0;t\\x07\\u202e" in proc.stderr  # the progress lines name the student

    written = {}
    for folder, _, files in os.walk(out):
        for name in files:
            if name.endswith((".md", ".json", ".csv")):
                with open(os.path.join(folder, name), encoding="utf-8", newline="") as f:
                    written[os.path.relpath(os.path.join(folder, name), out)] = f.read()
    assert len([p for p in written if p.endswith("feedback.md")]) == 5, sorted(written)
    for path, content in written.items():
        assert not raw_controls(content), (path, raw_controls(content))

    escapes = written[os.path.join("terminal_escapes_in_exception", "feedback.md")]
    assert "\\x1b[2J" in escapes and "\\u202e001 / 001" in escapes  # shown, as text

    fence = written[os.path.join("feedback_fence_breakout", "feedback.md")]
    lines, inside, opening, quoted = fence.split("\n"), False, "", []
    for line in lines:
        if not inside and re.fullmatch(r"`{3,}text", line):
            inside, opening = True, line[: -len("text")]
        elif inside and closing_fence(line, opening):
            assert line == opening, f"the fence {opening!r} was closed early by {line!r}"
            inside = False
        elif inside:
            quoted.append(line)
    assert not inside
    assert any(line.startswith("<img src=") for line in quoted) and any(line.startswith("# 总分 / total") for line in quoted)

    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark")
    for path, content in written.items():
        if path.endswith("feedback.md"):
            html = md.render(content)
            assert not re.search(r"<(img|a|script)\b", html), (path, html)
            assert len(re.findall(r"<h1>", html)) == 1, path  # only the grader's title is a heading
    named_md = next(content for path, content in written.items() if path.startswith("_named") and path.endswith("feedback.md"))
    assert "\\x1b[2J&lt;img src=x onerror=alert(1)&gt;" in md.render(named_md)
