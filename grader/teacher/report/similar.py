"""``python -m grader similar DIR --out OUT``: submissions that are suspiciously alike.

The class folder is read as ``batch`` reads it (``downloads.read``: a
Canvas or Moodle download too); every pair of students is compared
exercise by exercise with copydetect's fingerprints (tokens, not text:
names become one letter, comments and layout are dropped, so renaming
variables, reordering functions, adding comments or reformatting hides
nothing). What is found goes to
``OUT/similar.json`` and ``OUT/similar.html``; the class report shows the same
section (``html_section``, ``markdown_section``) from the JSON.

What counts. Code the course gave the students is discounted as
boilerplate: the stubs in ``exercises/`` and the reference solutions in
``solutions/``. The stubs because every student starts from them. The
reference because it is the lecture's code (nanoGPT): students who follow the
lecture write it nearly word for word, and two students alike only in that
are not evidence of one copying the other. What is left is each student's
own code; two students sharing much of it is what this reports. (Whether a
student handed in the reference itself is another question, not asked here.)

The score of a pair. ``shared / max(tokens, MIN_TOKENS)``: the tokens of
the two students' own code that copydetect finds in the other's, over all
their own tokens, summed over the exercises; so the long exercises weigh most,
and the one-liners of ex0-ex3, where many write the same line, weigh little.
The same is computed for each exercise alone and the pair gets the larger:
a student who copied only ex6 (a third of the code) is still found. The
``MIN_TOKENS`` floor keeps a handful of shared tokens from making a high
score when there is little own code to compare (two students who handed in
the reference everywhere but wrote the same ``torch.bmm`` line would
otherwise share 100 %).

THRESHOLD and MIN_TOKENS come from measuring the cases tests/teacher/test_similar.py
keeps. A whole submission copied with renamed variables, moved functions and
new comments scores 0.95-0.98; ex6 alone copied 0.93, ex5 alone 0.87, ex4
alone 0.39 (too short to judge on its own). The closest pair of independent
correct students (tests/catalogue/right/, and the example's grace against
them) scores 0.29; untouched stubs, or the reference, 0. So 0.5, half of
their own code in common, leaves room on both sides.
"""

import bisect
import io
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass

from grader.exercises import IDS
from grader.files import PROJECT, write_atomically
from grader.handin import submission
from grader.student.markup import html_text, markdown_text
from grader.teacher.intake import downloads, submissions
from grader.teacher.options import CommandOptions, OptionError

GIVEN = ("exercises", "solutions")  # folders of code the course gave: boilerplate
JSON_NAME, HTML_NAME = "similar.json", "similar.html"
WORK_PREFIX = ".work-"  # as batch's: a batch in the same OUT removes leftovers of killed runs

THRESHOLD = 0.5  # a pair at or above is shown
TOP = 30  # at most this many pairs are shown
NOISE = 25  # copydetect's k (its default): a match is at least 25 characters of filtered code
MIN_TOKENS = 600  # the least a score is divided by: about one exercise the size of ex5 from each

CONTEXT = 1  # lines shown around a shared passage
MAX_LINES = 100  # lines of code shown per student and pair
LINE_CHARS = 160  # characters shown per line


# ------------------------------------------------------------ comparing


def _copydetect():
    # Imported only to compare: rendering similar.json (the class report) needs none of it,
    # and copydetect imports matplotlib.pyplot on the way.
    import copydetect
    from copydetect import utils

    return copydetect, utils


def _fingerprint(code: str, boilerplate: set):
    """copydetect's fingerprint of ``code``, the boilerplate's k-grams taken out.

    Every k-gram is kept (window 1), as copydetect does for boilerplate:
    Python's ``hash`` is salted per process, so a wider window would pick other
    fingerprints, and other scores, on every run. The boilerplate is removed
    here rather than by CodeFingerprint's ``boilerplate=``: copydetect 0.5 does
    that with ``np.intersect1d(assume_unique=True)`` on a list with repeats, which
    also drops the first of any repeated k-gram (three alike ``nn.Linear`` lines
    would count as one)."""
    copydetect, utils = _copydetect()
    fp = copydetect.CodeFingerprint("submission.py", NOISE, 1, language="python", fp=io.StringIO(code))
    fp.hashes -= boilerplate
    for h in boilerplate.intersection(fp.hash_idx):
        del fp.hash_idx[h]
    fp.token_coverage = int(utils.get_token_coverage(fp.hash_idx, NOISE, len(fp.filtered_code)))
    return fp


def _boilerplate() -> set:
    copydetect, _ = _copydetect()
    hashes = set()
    for folder in GIVEN:
        for ex in IDS:
            path = os.path.join(PROJECT, folder, ex + ".py")
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    hashes |= copydetect.CodeFingerprint(path, NOISE, 1, language="python", fp=f).hashes
    return hashes


def _stub_lines() -> set:
    """The stubs' lines, stripped: never marked as shared, though copydetect's
    passages run over them (a k-gram that starts in a docstring covers all of
    it: the docstring is one token)."""
    lines = set()
    for ex in IDS:
        path = os.path.join(PROJECT, "exercises", ex + ".py")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                lines |= {line.strip() for line in f}
    return lines


def _compare(a, b):
    """(shared tokens of a, of b, slices of a, of b): copydetect's compare_files."""
    if not a.token_coverage or not b.token_coverage or a.hashes.isdisjoint(b.hashes):
        return 0, 0, None, None
    copydetect, _ = _copydetect()
    overlap_a, (share_a, share_b), (slices_a, slices_b) = copydetect.compare_files(a, b)
    return int(overlap_a), round(share_b * b.token_coverage), slices_a, slices_b


def _score(shared: int, tokens: int) -> float:
    return shared / max(tokens, MIN_TOKENS)


def compare(codes: dict, threshold: float = THRESHOLD, top: int = TOP) -> dict:
    """The pairs of students whose code is alike.

    ``codes``: student id -> {exercise id: source}. Returns what similar.json
    holds: the settings, and the ``top`` pairs scoring at least ``threshold``,
    best first, each with its exercises and the shared passages."""
    boilerplate = _boilerplate()
    # A file handed in by many (a stub, a one-liner, a copy) is fingerprinted
    # once; and two pairs of files alike once filtered (names, comments and
    # layout aside: a copy) share the same counts, found once.
    made: dict = {}
    fps: dict = {}
    for sid, files in codes.items():
        fps[sid] = {}
        for ex, code in files.items():
            if code not in made:
                try:
                    made[code] = _fingerprint(code, boilerplate)
                except Exception:  # noqa: BLE001 - one odd file (the lexer's problem) is left out, not the class
                    made[code] = None
            if made[code] is not None:
                fps[sid][ex] = made[code]
    counts: dict = {}
    found = []
    for a, b in itertools.combinations(sorted(fps), 2):
        shared = tokens = 0
        best = 0.0
        for ex in IDS:
            fa, fb = fps[a].get(ex), fps[b].get(ex)
            if fa is None or fb is None:
                sa = sb = 0
            else:
                key = (fa.filtered_code, fb.filtered_code)
                if key not in counts:
                    counts[key] = _compare(fa, fb)[:2]
                sa, sb = counts[key]
            ta, tb = (fa.token_coverage if fa else 0), (fb.token_coverage if fb else 0)
            shared, tokens = shared + sa + sb, tokens + ta + tb
            best = max(best, _score(sa + sb, ta + tb))
        score = max(best, _score(shared, tokens))
        if score >= threshold and shared:
            found.append((-score, a, b))
    found.sort()
    stub_lines = _stub_lines()
    return {
        "tool": "copydetect " + _copydetect()[0].__version__,
        "threshold": threshold,
        "top": top,
        "noise": NOISE,
        "min_tokens": MIN_TOKENS,
        "boilerplate": [f for f in GIVEN if os.path.isdir(os.path.join(PROJECT, f))],
        "students": len(codes),
        "pairs_over_threshold": len(found),
        "pairs": [_pair(a, b, -neg, fps[a], fps[b], stub_lines) for neg, a, b in found[:top]],
    }


def _pair(a: str, b: str, score: float, fa: dict, fb: dict, stub_lines: set) -> dict:
    """One pair for similar.json: its exercises that share code, most first,
    each with the lines to show (a budget of MAX_LINES per student)."""
    exercises = []
    for ex in IDS:
        if ex in fa and ex in fb:
            sa, sb, slices_a, slices_b = _compare(fa[ex], fb[ex])
            if sa + sb:
                exercises.append((ex, sa, sb, slices_a, slices_b))
    exercises.sort(key=lambda e: -(e[1] + e[2]))
    budget = {"a": MAX_LINES, "b": MAX_LINES}
    out = []
    for ex, sa, sb, slices_a, slices_b in exercises:
        ta, tb = fa[ex].token_coverage, fb[ex].token_coverage
        out.append(
            {
                "exercise": ex,
                "score": round((sa + sb) / (ta + tb), 3),
                "shared": [sa, sb],
                "tokens": [ta, tb],
                "a": _passages(fa[ex].raw_code, slices_a, stub_lines, budget, "a"),
                "b": _passages(fb[ex].raw_code, slices_b, stub_lines, budget, "b"),
            }
        )
    return {
        "a": a,
        "b": b,
        "score": round(score, 3),
        "shared": sum(e["shared"][0] + e["shared"][1] for e in out),
        "exercises": out,
    }


def _passages(code: str, slices, stub_lines: set, budget: dict, side: str) -> dict:
    """Where ``slices`` (copydetect's [starts, ends] in ``code``) fall:
    ``slices`` as character ranges, ``lines`` as 1-based line ranges, and
    ``excerpt``: the lines to show, [number, text, [[from, to] columns
    marked]], the marked lines with CONTEXT around them. A line of the stubs
    is not marked."""
    ranges = sorted((max(0, int(s)), min(len(code), int(e))) for s, e in zip(*slices) if int(e) > int(s))
    starts = [m.start() for m in re.finditer(r"^", code, re.M)]  # offset of each line
    marks: dict[int, list] = {}  # 0-based line -> [[from, to]]
    for s, e in ranges:
        line = bisect.bisect_right(starts, s) - 1
        while line < len(starts) and starts[line] < e:
            end_of_line = starts[line + 1] - 1 if line + 1 < len(starts) else len(code)
            lo, hi = max(s, starts[line]) - starts[line], min(e, end_of_line) - starts[line]
            text = code[starts[line] : end_of_line]
            piece = text[lo:hi]
            lo, hi = lo + len(piece) - len(piece.lstrip()), hi - len(piece) + len(piece.rstrip())  # no mark on indentation
            if hi > lo and text.strip() not in stub_lines:
                marks.setdefault(line, []).append([lo, hi])
            line += 1
    lines = code.split("\n")
    shown = sorted({n for m in marks for n in range(m - CONTEXT, m + CONTEXT + 1) if 0 <= n < len(lines)})
    cut = len(shown) > budget[side]
    shown = shown[: budget[side]]
    budget[side] -= len(shown)
    excerpt = []
    for n in shown:
        text = lines[n][:LINE_CHARS]
        cols = [[lo, min(hi, len(text))] for lo, hi in marks.get(n, []) if lo < len(text)]
        excerpt.append([n + 1, text + ("…" if len(lines[n]) > LINE_CHARS else ""), cols])
    return {"slices": [list(r) for r in ranges], "lines": _runs(sorted(m + 1 for m in marks)), "excerpt": excerpt, "cut": cut}


def _runs(numbers: list) -> list:
    """[3, 4, 5, 9] -> [[3, 5], [9, 9]]"""
    out: list = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


# --------------------------------------------------------------- writing


def read_codes(entries) -> tuple[dict, list]:
    """The exercise files of each entry (``submissions.Entry``) that has a folder:
    {id: {exercise: source}}, and the entries left out, as {"id", "note"}.
    Files are read as intake reads them (no symbolic link, at most 1 MB); a
    file that is missing or unreadable is left out of that student's code.
    Where the grader graded a notebook, its code is the answer cells' code
    it graded (``submission.load`` chooses, as the grader does)."""
    codes, left_out = {}, []
    for e in entries:
        if e.folder is None:
            left_out.append({"id": e.student_id, "note": submissions.notes_text(e.notes)})
            continue
        files = {}
        graded = submission.load(e.folder).files
        for ex in IDS:
            source = graded[ex].source
            if graded[ex].notebook is not None:
                if source is not None:
                    files[ex] = source.decode("utf-8")
                continue
            data = submissions._read_regular(os.path.join(e.folder, ex + ".py"), [])
            if isinstance(data, bytes):
                try:
                    files[ex] = submission.python_source(data)  # a GBK file compares by its text, as graded
                except (UnicodeDecodeError, SyntaxError):
                    files[ex] = data.decode("utf-8", errors="replace")
        codes[e.student_id] = files
    return codes, left_out


def summary(data: dict, page_path: str, seconds: float | None = None) -> str:
    """The one line that says how many pairs are alike (``similar``'s last, and ``batch``'s)."""
    shown = len(data["pairs"])
    more = f", 显示前 / showing the top {shown}" if shown < data["pairs_over_threshold"] else ""
    took = f", {seconds:.1f} s" if seconds is not None else ""
    return f"相似 / similar: {data['pairs_over_threshold']} 对 / pairs ≥ {data['threshold']:g}{more} ({data['students']} 名学生 / students{took}) → {page_path}"


def write(entries, out_dir: str, threshold: float = THRESHOLD, top: int = TOP) -> dict:
    """Compare the students of ``entries`` (``submissions.discover``'s) and write
    OUT/similar.json and OUT/similar.html. Returns what the JSON holds."""
    codes, left_out = read_codes(entries)
    data = compare(codes, threshold, top)
    data["not_compared"] = left_out
    write_atomically(os.path.join(out_dir, JSON_NAME), json.dumps(data, ensure_ascii=False) + "\n")
    write_atomically(os.path.join(out_dir, HTML_NAME), page(data))
    return data


def _usage(message: str) -> int:
    print(f"python -m grader similar: 错误 / error: {message}", file=sys.stderr, flush=True)
    return 2


@dataclass(frozen=True)
class SimilarOptions(CommandOptions):
    """What ``python -m grader similar`` is asked to do."""

    dir: str  # the class, as for batch: a folder or zip, one submission per student
    out: str  # where similar.json and similar.html go (not inside dir)
    threshold: float = THRESHOLD  # pairs scoring at least this are shown, 0..1
    top: int = TOP  # at most this many pairs are shown
    assignment: str = "attention"  # in nbgrader's layout DIR/<id>/<assignment>/, the folder read

    def __post_init__(self) -> None:
        self._check_paths("dir", "out")
        self._check_fraction("threshold")
        self._check_whole_number("top", least=1)
        self._check_names("assignment")


def run(args) -> int:
    """The command line's ``similar``: argparse's namespace made a ``SimilarOptions`` once, and compared."""
    try:
        options = SimilarOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return find_similar(options)


def find_similar(options: SimilarOptions) -> int:
    """Compare the class in ``options.dir`` into ``options.out``; the exit
    code (2: a usage error, nothing written; 130: interrupted)."""
    if not os.path.isdir(options.dir) and not (os.path.isfile(options.dir) and options.dir.lower().endswith(".zip")):
        return _usage(f"找不到文件夹或 zip / no such folder or zip: {options.dir}")
    out = os.path.abspath(options.out)
    real_out, real_dir = os.path.realpath(out), os.path.realpath(options.dir)
    if real_out == real_dir or real_out.startswith(real_dir.rstrip(os.sep) + os.sep):
        return _usage("--out 不能在 DIR 之内 / --out must not be inside DIR")
    try:
        os.makedirs(out, exist_ok=True)
        work = tempfile.mkdtemp(prefix=WORK_PREFIX, dir=out)
    except OSError as exc:
        return _usage(f"无法写入 / cannot write to {options.out}: {exc.strerror}")
    start = time.monotonic()
    try:
        found = downloads.read(options.dir, work, options.assignment, exclude=(out,))
        entries, warnings = found.entries, found.warnings
        for w in warnings:
            print(w, file=sys.stderr)
        if not entries:
            print(f"没有找到提交 / no submissions found in {options.dir}", file=sys.stderr)
        data = write(entries, out, options.threshold, options.top)
    except OSError as exc:
        return _usage(f"无法写入 / cannot write to {options.out}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        print("已中断 / interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(summary(data, os.path.join(options.out, HTML_NAME), time.monotonic() - start), flush=True)
    return 0


# ------------------------------------------------------- HTML, Markdown

HEADING = "相似的提交 / Similar submissions"
NOT_A_VERDICT = (
    "这只是供人查看的线索，不是结论：相似可能另有原因（一起学习、同一份资料）。",
    "This is evidence for a person to look at, not a verdict: code can be alike for other reasons (studying together, the same source).",
)

CSS = """
.similar .pair { border-top: 1px solid #d8dce3; padding: .3rem 0; break-inside: avoid-page; }
.similar .pair h3 { font-size: 1rem; margin: .4rem 0 .2rem; }
.similar .ids { overflow-wrap: anywhere; }
.similar .side { table-layout: fixed; width: 100%; border-collapse: collapse; margin: .3rem 0 .8rem; }
.similar .side th, .similar .side td { width: 50%; border: 1px solid #d8dce3; padding: .2rem .3rem; vertical-align: top; text-align: left; }
.similar pre { margin: 0; font-size: 11px; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere; }
.similar .ln { color: #888; user-select: none; }
.similar mark { background: #ffe08a; color: inherit; }
.similar .gap { color: #888; }
@media print { .similar pre { font-size: 7.5pt; } }
"""


def _code(side: dict) -> str:
    """One student's excerpt as a <pre>: line numbers, shared passages in <mark>."""
    out, last = [], None
    for number, text, cols in side.get("excerpt", []):
        if last is not None and number != last + 1:
            out.append('<span class="gap">   ⋮</span>')
        pieces, at = [], 0
        for lo, hi in cols:
            lo, hi = max(int(lo), at), max(int(hi), at)  # marks in order, never overlapping
            pieces.append(html_text(text[at:lo]) + "<mark>" + html_text(text[lo:hi]) + "</mark>")
            at = hi
        pieces.append(html_text(text[at:]))
        out.append(f'<span class="ln">{int(number):>4}</span> ' + "".join(pieces))
        last = number
    if side.get("cut"):
        out.append('<span class="gap">   … 其余略 / the rest is left out</span>')
    return "<pre>" + "\n".join(out) + "</pre>"


def _exercises_line(pair: dict) -> str:
    return ", ".join(f"{e['exercise']} {float(e['score']):.2f}" for e in pair.get("exercises", []))


def _summary(data: dict) -> tuple[str, str]:
    n, shown = data.get("pairs_over_threshold", 0), len(data.get("pairs", []))
    zh = f"比较了 {data.get('students', 0)} 名学生；{n} 对的分数不低于阈值 {float(data.get('threshold', 0)):g}"
    en = f"{data.get('students', 0)} students compared; {n} pair{'' if n == 1 else 's'} at or above the threshold {float(data.get('threshold', 0)):g}"
    if shown < n:
        zh, en = zh + f"，只显示前 {shown} 对", en + f", the top {shown} are shown"
    return zh + "。", en + "."


HOW = (
    "分数：两人自己的代码（不含题目给的代码和参考答案）中相同部分所占的比例，按整份作业或单道练习中较高者计。",
    "Score: the share of the two students' own code (not the stubs, not the reference solutions) that they have in common, over the whole submission or over one exercise, whichever is higher.",
)


def html_section(data: dict) -> str:
    """The section for a page: the heading, what it means, and each pair
    with its side-by-side view folded in a <details>."""
    parts = [
        f"<style>{CSS}</style>",
        '<div class="similar">',
        f"<h2>{html_text(HEADING)}</h2>",
        f"<p><strong>{html_text(NOT_A_VERDICT[0])}</strong><br><strong>{html_text(NOT_A_VERDICT[1])}</strong></p>",
        "<p>" + "<br>".join(html_text(s) for s in _summary(data)) + "</p>",
        "<p>" + "<br>".join(html_text(s) for s in HOW) + "</p>",
    ]
    if not data.get("pairs"):
        parts.append("<p>没有超过阈值的一对 / No pair reaches the threshold.</p>")
    for pair in data.get("pairs", []):
        a, b = pair.get("a", ""), pair.get("b", "")
        parts.append('<div class="pair">')
        parts.append(f'<h3><span class="ids">{html_text(a)} ↔ {html_text(b)}</span> · {float(pair.get("score", 0)):.2f}</h3>')
        parts.append(f"<p>练习 / exercises: {html_text(_exercises_line(pair))}</p>")
        parts.append("<details><summary>并排查看共同的段落 / the shared passages side by side</summary>")
        for e in pair.get("exercises", []):
            parts.append(
                f'<table class="side"><thead><tr><th>{html_text(a)} · {html_text(e.get("exercise", ""))}</th>'
                f"<th>{html_text(b)} · {html_text(e.get('exercise', ''))}</th></tr></thead>"
                f"<tbody><tr><td>{_code(e.get('a', {}))}</td><td>{_code(e.get('b', {}))}</td></tr></tbody></table>"
            )
        parts.append("</details></div>")
    not_compared = data.get("not_compared", [])
    if not_compared:
        parts.append("<p>未比较 / not compared: " + ", ".join(f'<span class="ids">{html_text(s.get("id", ""))}</span>' for s in not_compared) + "</p>")
    parts.append(f"<p><small>{html_text(data.get('tool', 'copydetect'))}</small></p></div>")
    return "\n".join(parts)


PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif;
       font-size: 14px; line-height: 1.45; color: #1d1d1f; margin: 0 auto; padding: 1.5rem; max-width: 72rem; }
@page { size: A4; margin: 14mm 12mm; }
@media print { body { padding: 0; max-width: none; font-size: 10pt; } }
"""


def page(data: dict) -> str:
    """similar.html: ``html_section`` in a page of its own (nothing fetched)."""
    return (
        '<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(HEADING)}</title><style>{PAGE_CSS}</style></head><body>\n{html_section(data)}\n</body></html>\n"
    )


def _line_ranges(side: dict) -> str:
    return ", ".join(f"{lo}" if lo == hi else f"{lo}–{hi}" for lo, hi in side.get("lines", []))


def markdown_section(data: dict) -> str:
    """The section in Markdown: as ``html_section`` without the code, the
    shared passages given as line ranges."""
    lines = [f"## {HEADING}", ""]
    for text in (f"**{NOT_A_VERDICT[0]}**", f"**{NOT_A_VERDICT[1]}**", *_summary(data), *HOW):
        lines += [text, ""]  # each its own paragraph: Markdown joins adjacent lines
    if not data.get("pairs"):
        lines += ["没有超过阈值的一对 / No pair reaches the threshold.", ""]
    for pair in data.get("pairs", []):
        a, b = markdown_text(pair.get("a", "")), markdown_text(pair.get("b", ""))
        lines += [f"### {a} ↔ {b} · {float(pair.get('score', 0)):.2f}", ""]
        for e in pair.get("exercises", []):
            lines.append(f"- {markdown_text(e.get('exercise', ''))} {float(e.get('score', 0)):.2f}: {a} 行 / lines {_line_ranges(e.get('a', {}))}; {b} 行 / lines {_line_ranges(e.get('b', {}))}")
        lines.append("")
    not_compared = data.get("not_compared", [])
    if not_compared:
        lines += ["未比较 / not compared: " + ", ".join(markdown_text(s.get("id", "")) for s in not_compared), ""]
    return "\n".join(lines)
