"""What a grade looks like to people: an 80-column terminal report, a
Markdown feedback file, and Gradescope's results.json."""

import dataclasses
import html
import json
import os
import re
import unicodedata

from grader import __version__
from grader.exercises import BY_ID, IDS
from grader.files import write_atomically
from grader.student.markup import fenced
from grader.text import DIAGNOSIS_LABEL, NOT_IMPLEMENTED, count

WIDTH = 78  # two columns short of an 80-column terminal, so nothing wraps


def width(s: str) -> int:
    """Columns a string takes in a terminal: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def pad(s: str, n: int, right: bool = False) -> str:
    gap = " " * max(0, n - width(s))
    return gap + s if right else s + gap


def _num(x: float) -> str:
    return f"{x:g}"


def _exercise_rows(grade):
    for ex in IDS:
        rs = [r for r in grade.results if r.exercise == ex]
        if rs:
            yield ex, rs


def _shared_fault(rs) -> str | None:
    """When every check of an exercise failed for one reason (an import error,
    an untouched stub), say it once."""
    failed = [r for r in rs if not r.passed]
    texts = {r.feedback for r in failed}
    if len(failed) == len(rs) and len(texts) == 1 and len(rs) > 1:
        return texts.pop()
    return None


SHOWN_IN_FULL = 3  # failures explained in full per exercise; the rest are listed by name


def wrap(line: str, limit: int = WIDTH) -> list[str]:
    """Wrap a line to ``limit`` terminal columns, keeping its indentation.
    Breaks at spaces where there are any, anywhere in Chinese text but never
    before Chinese punctuation (which may then stick out by one character:
    hence the default two columns short of the terminal's 80)."""
    if width(line) <= limit:
        return [line]
    body = line.lstrip(" ")
    indent = " " * (len(line) - len(body))
    # Continuation lines line up with the text after a "label:   " prefix if there is one.
    label_end = body.find(":  ")
    if 0 < label_end < 20:
        text_start = len(body) - len(body[label_end + 1 :].lstrip(" "))
        hang = indent + " " * width(body[:text_start])
    else:
        hang = indent + ("  " if body.startswith("✗ ") else "")
    out, current = [], indent
    for token in _tokens(body):
        breakable = token not in _NO_BREAK_BEFORE
        if breakable and width(current) + width(token) > limit and current.strip():
            out.append(current.rstrip())
            current = hang
            token = token.lstrip(" ")
        current += token
    out.append(current.rstrip())
    return out


_NO_BREAK_BEFORE = set("。，、；：）」』！？")


def _tokens(text: str):
    word = ""
    for ch in text:
        if ch == " " or width(ch) == 2:
            if word:
                yield word
            word = ""
            yield ch
        else:
            word += ch
    if word:
        yield word


def not_started(rs) -> bool:
    """Every check of the exercise met the untouched stub's NotImplementedError."""
    return bool(rs) and all(r.not_implemented for r in rs)


def missing(rs) -> bool:
    """The exercise's file is not there at all (neither .py nor notebook)."""
    return bool(rs) and all(r.missing for r in rs)


# A line of a fault's traceback: "  <file>, line N: <code>" (a notebook: "<file>, cell C, line N").
_PLACE = re.compile(r"^\s+(\S.*?, (?:cell \d+, )?line \d+): ", re.MULTILINE)


def _stub_place(rs) -> str | None:
    """The first place in the file where a check met the stub's
    NotImplementedError (each check's last traceback line), as the file's own
    name and line: "ex0_weighted_sum.py, line 46"."""
    places = [found[-1] for r in rs if (found := _PLACE.findall(r.feedback))]
    if not places:
        return None
    return os.path.basename(min(places, key=_cell_and_line))


def _cell_and_line(place: str) -> tuple[int, int]:
    m = re.search(r", (?:cell (\d+), )?line (\d+)$", place)
    assert m is not None  # _PLACE found the place by the same ending
    return int(m.group(1) or 0), int(m.group(2))


def _grouped(failed):
    groups: dict[str, list] = {}
    for r in failed:
        groups.setdefault(r.feedback, []).append(r)
    return groups.items()


def terminal(grade, title: str = "") -> str:
    """The report a terminal shows: the table of points, what failed and why,
    then the closing lines, wrapped to the terminal's width."""
    out = _table(grade, title)
    notes = notes_text(grade)
    if notes:
        out += [notes, ""]
    _add_failures(grade, out)
    if out[-1]:
        out.append("")
    for err in grade.errors:
        out += ["评分程序出错 / grader error:\n" + err, ""]
    out += closing(grade)
    text = "\n".join(out).rstrip()
    return "\n".join(w for line in text.splitlines() for w in wrap(line)) + "\n"


def _table(grade, title: str) -> list[str]:
    """The table: each exercise's points and checks passed, then the total."""
    rule = "─" * WIDTH
    out = [title or f"注意力练习评分 / Attention exercises: {grade.submission}", rule]
    out.append(pad("练习 / exercise", 46) + pad("得分 / points", 16, True) + pad("通过 / passed", 16, True))
    out.append(rule)
    for ex, rs in _exercise_rows(grade):
        got, most = sum(r.points for r in rs), sum(r.max_points for r in rs)
        passed = sum(r.passed for r in rs)
        e = BY_ID[ex]
        mark = "✓" if passed == len(rs) else ("·" if passed == 0 else "~")
        name = f"{mark} {ex}  {e.zh} {e.en}"
        teacher = grade.teacher_points.get(ex)
        points = f"{_num(got)} / {_num(most)}" + (f" (+{_num(teacher)})" if teacher else "")
        out.append(pad(name, 46) + pad(points, 16, True) + pad(f"{passed} / {len(rs)}", 16, True))
    out.append(rule)
    out.append(pad("总分 / total", 46) + pad(f"{_num(grade.score)} / {_num(grade.max_score)}", 16, True))
    if grade.teacher_points:
        hidden = sum(grade.teacher_points.values())
        out.append(f"(+n)：隐藏检查的分数，共 {_num(hidden)} 分，由老师评分")
        out.append(f"(+n): points of hidden checks, {_num(hidden)} in all: graded by your teacher")
    out.append("")
    return out


def _add_failures(grade, out: list[str]) -> None:
    """Each exercise with a check that failed: one line where it is not
    started, else its failed checks grouped by their feedback and what its
    code printed (appended to ``out``, whose last line decides the spacing)."""
    for ex, rs in _exercise_rows(grade):
        failed = [r for r in rs if not r.passed]
        if not failed:
            continue
        printed = grade.outputs.get(ex, "").strip()
        if not_started(rs) and not printed:
            # The table says it scored nothing; one line says why (its checks would repeat it).
            out.append(f"· {_stub_place(rs) or ex}: {NOT_IMPLEMENTED.zh} / {NOT_IMPLEMENTED.en}")
            continue
        if missing(rs):
            out.append("· " + " / ".join(rs[0].feedback.splitlines()[:2]))  # its two names, in both languages
            continue
        if out[-1].startswith("· "):
            out.append("")
        out.append(f"━━ {ex} {BY_ID[ex].zh} / {BY_ID[ex].en} " + "━" * max(0, WIDTH - 8 - width(ex + BY_ID[ex].zh + BY_ID[ex].en)))
        shared = _shared_fault(rs)
        if shared is not None:
            out.append(_indent(shared))
        else:
            out += _failed_checks(failed)
        if printed:
            out.append(_indent("你的程序输出 / your code printed:\n" + _indent(printed[-1200:])))
        out.append("")


def _failed_checks(failed: list) -> list[str]:
    """Checks that failed for the same reason (say, one unfinished function)
    listed together, with the reason once; the first ``SHOWN_IN_FULL``
    reasons in full, the rest by name."""
    out = []
    groups = list(_grouped(failed))
    for feedback, group in groups[:SHOWN_IN_FULL]:
        if not_started(group):
            # A function not written yet: its checks are counted, not listed.
            most = sum(r.max_points for r in group)
            out.append(f"✗ {len(group)} 项检查 / {count(len(group), 'check')}  (0/{_num(most)})")
        else:
            for r in group:
                out.append(f"✗ {r.name}  ({_num(r.points)}/{_num(r.max_points)})")
        out.append(_indent(feedback))
    rest = [r for _, group in groups[SHOWN_IN_FULL:] for r in group]
    if rest:
        out.append(f"还有 {len(rest)} 项检查未通过（先改上面的，它们常常一起变好）")
        out.append(f"{count(len(rest), 'more check')} failed (fix the ones above first; these often follow):")
        out.extend(f"✗ {r.name}  ({_num(r.points)}/{_num(r.max_points)})" for r in rest)
    return out


def closing(grade) -> list[str]:
    """The report's last lines, Chinese then English, each one line of the
    terminal: the total, how many exercises are done, and what to do next
    (the first exercise, in the course's order, that is not done). tox, a
    terminal and a notebook all show it, so it names no command."""
    rows = list(_exercise_rows(grade))
    total = f"{_num(grade.score)} / {_num(grade.max_score)}"
    if grade.errors:
        return [f"总分 {total}：评分程序出错，部分检查没有运行（见上）。", f"Total {total}: the grader failed; some checks did not run (above)."]
    todo = [ex for ex, rs in rows if not all(r.passed for r in rs)]
    hidden = sum(grade.teacher_points.values())
    if not todo:
        if hidden:
            return [f"总分 {total}：公开检查全部通过；隐藏检查（+{_num(hidden)}）由老师评分。", f"Total {total}: all public checks pass; your teacher grades the hidden (+{_num(hidden)})."]
        return [f"总分 {total}：每项检查都通过了。", f"Total {total}: every check passed."]
    idle = [ex for ex, rs in rows if not_started(rs) or missing(rs)]
    first = todo[0]
    if len(rows) == 1:
        zh_state, en_state = ("还没开始", "not started yet") if idle else ("还有检查没通过", "not done yet")
    elif len(idle) == len(rows):
        zh_state, en_state = f"{len(rows)} 道都还没开始", "nothing started yet"
    else:
        done = len(rows) - len(todo)
        zh_state = f"完成 {done} / {len(rows)} 道" + (f"，{len(idle)} 道没开始" if idle else "")
        en_state = f"{done} of {len(rows)} done" + (f", {len(idle)} not started" if idle else "")
    absent = {ex for ex, rs in rows if missing(rs)}
    if first in absent:
        zh_next = [f"把 {first} 的文件（.py 或 .ipynb）放进这个文件夹", f"放回 {first} 的文件"]
        en_next = [f"put {first}'s file (.py or .ipynb) in this folder", f"put {first}'s file here"]
    elif first in idle:
        zh_next = [f"在 {first} 的 TODO 处写代码", f"写 {first}"]
        en_next = [f"write {first} where it says TODO", f"{first}, at its TODO", f"write {first}"]
    else:
        zh_next = [f"按上面的反馈改 {first}", f"改 {first}"]
        en_next = [f"fix {first} (its feedback is above)", f"fix {first} (feedback above)", f"fix {first}"]
    # The longest that keeps each on one line of the terminal.
    zh = [f"总分 {total}：{zh_state}。下一步：{n}。" for n in zh_next]
    en = [f"Total {total}: {en_state}. Next: {n}." for n in en_next]
    return [next((line for line in lines if width(line) <= WIDTH), lines[-1]) for lines in (zh, en)]


def without_hidden_inputs(grade):
    """A copy of ``grade`` for feedback that keeps the hidden checks hidden
    (nbgrader's, which a student reads next to the notebook): a failed hidden
    check keeps its name, its points and the mistake it named, not its
    feedback, which quotes the inputs it used; what the code printed is left
    out, since it printed them too."""

    def said(r) -> str:
        lines = [f"{NOT_IMPLEMENTED.zh} / {NOT_IMPLEMENTED.en}"] if r.not_implemented else []
        if r.diagnosis:
            lines.append(f"{DIAGNOSIS_LABEL}{r.diagnosis.zh} / {r.diagnosis.en}")
        lines.append("隐藏检查：它的输入只给老师看 / a hidden check: its inputs are for the teacher only")
        return "\n".join(lines)

    results = [dataclasses.replace(r, feedback=said(r)) if r.hidden and not r.passed else r for r in grade.results]
    return dataclasses.replace(grade, results=results, outputs={})


def notes_text(grade) -> str:
    """How the files were read, where the student should know it (which of
    a .py and a notebook was graded, a notebook's answer cells, IPython lines
    made comments): "" when there is nothing to say."""
    lines = []
    for ex, notes in grade.notes.items():
        for note in notes:
            lines += [f"注意 / note ({ex}):", _indent(str(note))]
    return "\n".join(lines)


def _indent(s: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in s.splitlines())


def markdown(grade) -> str:
    """The same feedback as the terminal, for a file a student opens."""
    lines = ["# 评分反馈 / Feedback", "", f"总分 / total: **{_num(grade.score)} / {_num(grade.max_score)}**", ""]
    lines += ["| 练习 / exercise | 得分 / points | 通过 / passed |", "|---|---:|---:|"]
    for ex, rs in _exercise_rows(grade):
        got, most = sum(r.points for r in rs), sum(r.max_points for r in rs)
        lines.append(f"| {ex} {BY_ID[ex].zh} / {BY_ID[ex].en} | {_num(got)} / {_num(most)} | {sum(r.passed for r in rs)} / {len(rs)} |")
    notes = notes_text(grade)
    if notes:
        lines += ["", *fenced(notes)]
    for ex, rs in _exercise_rows(grade):
        failed = [r for r in rs if not r.passed]
        if failed:
            lines += ["", f"## {ex}", ""]
            for r in failed:
                lines += [f"- ✗ {r.name} ({_num(r.points)}/{_num(r.max_points)})", "", *fenced(r.feedback), ""]
    return "\n".join(lines) + "\n"


# results.json follows Gradescope's format, which other platforms read too:
# https://gradescope-autograders.readthedocs.io/en/latest/specs/
# (the "Output format" section; its source is docs/specs.md of
# github.com/gradescope/autograder_samples). Besides the top-level
# "extra_data", each test may have an "extra_data" of its own ("Optional extra
# data to be stored"): ``check_data`` fills it.
#
# A check's feedback is columns lined up with spaces ("得到 / got:      [...]")
# that quote what the submission printed and raised. "text" shows it as it is,
# in a monospaced <pre> with nothing rendered. "md" would need a code fence
# that the quoted output could close, and "simple_format" would collapse the
# spaces of the columns and read the student's output as HTML.
TEST_OUTPUT_FORMAT = "text"
# The message above the checks is a few short lines. "simple_format" (also
# Gradescope's default there) turns each line end into a line break; what it
# would take for HTML (a file name a student chose, a traceback's "<module>")
# is escaped first, by ``summary``.
OUTPUT_FORMAT = "simple_format"
UNGRADABLE = "无法评分 / This submission could not be graded"


def summary(text: str) -> dict:
    """The top-level ``output`` of results.json (and its format): ``text``
    is plain lines, shown as they are."""
    return {"output": html.escape(text, quote=False), "output_format": OUTPUT_FORMAT}


def results_json(grade) -> dict:
    """Gradescope's results.json of a grade."""
    tests = []
    count = {ex: 0 for ex in IDS}
    for r in grade.results:
        count[r.exercise] += 1
        tests.append(
            {
                "name": f"{r.exercise}: {r.name}",
                # exercise.check ("4.2": ex4's second check), in the checks' order:
                # public before hidden, so a student's own run numbers them alike.
                "number": f"{IDS.index(r.exercise)}.{count[r.exercise]}",
                "score": r.points,
                "max_score": r.max_points,
                "status": "passed" if r.passed else "failed",
                "output": r.feedback,
                "output_format": TEST_OUTPUT_FORMAT,
                "visibility": "after_published" if r.hidden else "visible",
                "tags": [r.exercise, "hidden" if r.hidden else "public", r.check_id],
                "extra_data": check_data(r),
            }
        )
    out = {
        "score": grade.score,
        "execution_time": round(grade.seconds, 3),
        # The total counts the hidden checks' points, so it waits for them:
        # until the teacher publishes, a student sees the public checks
        # (each "visible") and nothing that tells how the hidden ones went.
        "visibility": "after_published" if any(r.hidden for r in grade.results) else "visible",
        **_teacher_only(grade.inputs_seed, grade.unconfined, grade.results),
        "tests": tests,
    }
    said = [notes_text(grade)]
    if grade.errors:
        said.append("评分程序出错，部分检查没有运行 / grader error: some checks did not run\n" + "\n".join(grade.errors)[:4000])
    if any(said):
        out.update(summary("\n\n".join(s for s in said if s)))
    return out


def ungradable_results(*reasons: str) -> dict:
    """results.json for a submission that could not be graded at all (no
    exercise files in it, a zip that cannot be read, a grader that failed on
    it): 0 points, no checks, and the reasons ("中文 / English", one a line)
    under a line that says so."""
    return {
        "score": 0,
        "execution_time": 0.0,
        **summary("\n".join([UNGRADABLE, *reasons])),
        "visibility": "visible",  # no hidden result to wait for: the student reads why at once
        **_teacher_only(),
        "tests": [],
    }


def check_data(r) -> dict:
    """A check's ``extra_data`` in results.json: what the class report counts
    (and ``docs/_ext/mistake_table.py`` shows), as data.

    - ``kind``: "public" or "hidden";
    - ``started``: false when the check met the untouched stub (its
      NotImplementedError), true otherwise;
    - ``diagnosis``: ``{"zh": ..., "en": ...}``, the known mistake the answer
      matches when the check named one (the feedback's "诊断 / found" line),
      else null.

    All three come from the check's outcome as the plugin recorded it in this
    process (``plugin.CheckResult``), never from the feedback text, which
    quotes what the submission raised and printed: a "诊断 / found:" line a
    submission prints or raises of its own is quoted there, and counted
    nowhere. (``started`` is false only where the submission's own code
    raised NotImplementedError: a submission can say it was not started,
    which is what raising it says.)"""
    d = r.diagnosis
    return {
        "kind": "hidden" if r.hidden else "public",
        "started": not r.not_implemented,
        "diagnosis": {"zh": d.zh, "en": d.en} if d else None,
    }


def _summary_data(results) -> dict:
    """The checks' ``extra_data`` summed up for the whole submission, each
    key only when it has something to say: ``not_started``, the exercises
    whose every check met the stub; ``diagnoses``, each mistake named once
    per exercise, with the checks that named it."""
    out: dict = {}
    by_exercise: dict = {}
    for r in results:
        by_exercise.setdefault(r.exercise, []).append(r)
    not_started = [ex for ex in IDS if by_exercise.get(ex) and all(r.not_implemented for r in by_exercise[ex])]
    if not_started:
        out["not_started"] = not_started
    named: dict = {}
    for r in results:
        if r.diagnosis and not r.passed:
            key = (r.exercise, r.diagnosis.zh, r.diagnosis.en)
            named.setdefault(key, {"exercise": r.exercise, "zh": r.diagnosis.zh, "en": r.diagnosis.en, "checks": []})["checks"].append(r.check_id)
    if named:
        out["diagnoses"] = list(named.values())
    return out


def _teacher_only(inputs_seed: int = 0, unconfined: list | None = None, results=()) -> dict:
    """The fields for the teacher's eyes: the grader's standard output (kept hidden) and extra_data."""
    extra: dict = {"grader_version": __version__}
    if inputs_seed:
        # The checks' inputs were drawn with this secret: `--inputs-seed` regrades with the same ones.
        extra["inputs_seed"] = inputs_seed
    if unconfined:
        # What could not be done to confine the submission's code where it was graded.
        extra["unconfined"] = list(unconfined)
    extra.update(_summary_data(results))
    # What the grader prints is for the teacher: the full report quotes the
    # hidden checks, their inputs included.
    return {"stdout_visibility": "hidden", "extra_data": extra}


def write_results(path: str, results: dict) -> None:
    """Write a results.json (``results_json``, ``ungradable_results``) atomically."""
    write_atomically(path, json.dumps(results, ensure_ascii=False, indent=2) + "\n")
