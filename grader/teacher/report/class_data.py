"""A batch's output folder read back as plain data, for the class report.

``read(out)`` takes what ``python -m grader batch`` left in OUT and nothing
else: ``grades.csv`` says who the students are and their points;
``<safe id>/results.json`` says, check by check, what happened. It never
runs or imports the grader's grading side (no torch).

What a check found is read from its ``extra_data`` (``report.check_data``):
its kind (public or hidden), whether it met the untouched stub
(``started``) and the mistake it named (``diagnosis``), all decided by the
grading process. Its ``output`` (the feedback, which quotes what the
submission raised and printed) is never read: a submission that prints a
diagnosis of its own is not counted.

An exercise is *not started* when every check of it met the untouched stub,
or when the submission has no file for it (results.json's ``missing``,
written by the batch). A check's pass rate counts only the students who
started its exercise; those who did not are counted apart
(``Check.not_started``), so a check that the starters fail stands out.

A mistake is one row however many checks named it. A student's exercise
has one mistake, the one most of its failing checks name (``one_mistake``:
checks that meet one wrong answer on other inputs may name a neighbouring
mistake too, which would be a second row for one error). Mistakes are
grouped by ``mistake_key``, the exercise and the English text without what
it quotes of the input in parentheses ("You scaled by n_embd (C)" and
"... n_embd (x.shape[-1])" are one mistake, found on two inputs).

A student is *graded* when their results.json is this run's (it names the
student, holds the submission's hash and agrees with the row's points);
otherwise the row's note says why not. A file that cannot be read is
skipped with a line in ``ClassData.problems``; the one thing that stops
the reading is a grades.csv that is missing or not a batch's
(``NotBatchOutput``).
"""

import csv
import html
import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from grader.teacher.batch.grades_csv import LATE_COLUMNS, NAME
from grader.teacher.batch.output import FEEDBACK, GRADES, RESULTS
from grader.teacher.intake.submissions import safe_name

MAX_RESULTS_BYTES = 64 * 1024**2  # the batch's own limit on a results.json it reads back


class NotBatchOutput(Exception):
    """The folder has no grades.csv: it is not what ``grader batch`` writes."""


@dataclass
class Student:
    id: str
    points: dict[str, float]  # exercise id -> points, from grades.csv
    total: float
    note: str  # grades.csv's note, the spreadsheet escape undone
    graded: bool = False
    feedback: str | None = None  # "<safe id>/feedback.md" when that file exists
    not_started: list[str] = field(default_factory=list)  # exercises whose every check met the stub
    why_not_graded: str = ""
    late: dict[str, str] | None = None  # grades.csv's late columns (raw, late_days, penalty, ...), with a late policy
    name: str = ""  # the name the platform's download gave (grades.csv's name column, else results.json), if any

    @property
    def late_days(self) -> int:
        try:
            return int(self.late["late_days"]) if self.late else 0
        except ValueError:
            return 0

    @property
    def started_nothing(self) -> bool:
        return self.graded and bool(self.not_started) and len(self.not_started) == len(self.points)


@dataclass
class Check:
    exercise: str
    check_id: str
    title: str  # "中文 / English", the test's name after "exN: "
    points: float
    hidden: bool
    passed: int = 0
    tried: int = 0  # graded students whose results hold this check and who started its exercise
    not_started: int = 0  # graded students whose results hold it, who did not start the exercise

    @property
    def pass_rate(self) -> float:
        return self.passed / self.tried if self.tried else 0.0


@dataclass
class Diagnosis:
    """One known mistake a check recognised, and who made it."""

    exercise: str
    zh: str
    en: str
    students: list[str] = field(default_factory=list)  # ids, each once, in grades.csv order


@dataclass
class ClassData:
    out: str
    exercises: list[str]  # grades.csv's exercise columns, in order
    maxima: dict[str, float]  # exercise id -> full marks (from the checks' max_score)
    students: list[Student]
    checks: list[Check]  # in the order the checks ran
    diagnoses: list[Diagnosis]  # most students first
    problems: list[str]  # files skipped while reading, and why

    @property
    def graded(self) -> list[Student]:
        return [s for s in self.students if s.graded]

    @property
    def max_total(self) -> float:
        return sum(self.maxima.values())


def read(out: str) -> ClassData:
    students, exercises, problems = _read_grades(out)
    maxima = {ex: 0.0 for ex in exercises}
    checks: dict[tuple, Check] = {}
    diagnoses: dict[tuple, Diagnosis] = {}
    older_files: list[str] = []  # results.json without the checks' extra_data
    for s in students:
        results = _read_results(out, s, problems)
        if results is None:
            continue
        tests = results["tests"]
        seen_maxima = _points(tests, exercises)[1]
        for ex in exercises:
            maxima[ex] = max(maxima[ex], seen_maxima[ex])
        if not s.graded:
            continue
        untouched = {ex: bool(seen_maxima[ex]) for ex in exercises}  # until a check says otherwise
        older = False
        ran = []  # (exercise, check id, test, its data, passed)
        for t in tests:
            ex, check_id = _tags(t)
            if ex not in maxima:
                continue
            data = check_data(t)
            older = older or data is None
            passed = t.get("status") == "passed"
            if passed or data is None or data.started:
                untouched[ex] = False
            ran.append((ex, check_id, t, data, passed))
        missing = _missing(results, exercises)
        s.not_started = [ex for ex in exercises if untouched[ex] or ex in missing]
        named: dict[str, list] = {}  # exercise -> what its failing checks named, in check order
        for ex, check_id, t, data, passed in ran:
            c = checks.get((ex, check_id))
            if c is None:
                c = checks[(ex, check_id)] = Check(ex, check_id, _title(t, ex), _float(t.get("max_score")), _hidden(t, data))
            if ex in s.not_started:
                c.not_started += 1
                continue
            c.tried += 1
            c.passed += passed
            found = None if passed or data is None else data.diagnosis
            if found:
                named.setdefault(ex, []).append(found)
        for ex, found_all in named.items():
            mistake = one_mistake(found_all)
            d = diagnoses.setdefault((ex, mistake_key(mistake[1])), Diagnosis(ex, *mistake))
            if s.id not in d.students:
                d.students.append(s.id)
        if older:
            older_files.append(f"{safe_name(s.id)}/{RESULTS}")
    if older_files:
        shown = ", ".join(older_files[:5]) + (f", ... (+{len(older_files) - 5})" if len(older_files) > 5 else "")
        problems.append(
            f"{shown}：旧版评分程序写的，其中的错误和未开始的练习没有计入，用 --force 重新评分 / "
            "written by an older grader: their mistakes and unstarted exercises are not counted (regrade with --force)"
        )
    ranked = sorted(diagnoses.values(), key=lambda d: (-len(d.students), exercises.index(d.exercise)))
    return ClassData(out, exercises, maxima, students, list(checks.values()), ranked, problems)


@dataclass(frozen=True)
class CheckData:
    """What a check found, as its ``extra_data`` in results.json says it
    (written by ``report.check_data`` in the grading process)."""

    kind: str  # "public" or "hidden"
    started: bool  # False: the check met the untouched stub
    diagnosis: tuple[str, str] | None  # (Chinese, English) of the mistake the answer matches


def check_data(test: dict) -> CheckData | None:
    """A results.json test's ``extra_data``, or None where it has none as
    the grader writes it (a results.json of an older grader, or not the
    grader's). Nothing else of the test is read: never its ``output``."""
    extra = test.get("extra_data")
    if not isinstance(extra, dict):
        return None
    kind, started, diagnosis = extra.get("kind"), extra.get("started"), extra.get("diagnosis")
    if kind not in ("public", "hidden") or not isinstance(started, bool):
        return None
    if isinstance(diagnosis, dict) and isinstance(diagnosis.get("zh"), str) and isinstance(diagnosis.get("en"), str) and diagnosis["zh"].strip():
        found = (diagnosis["zh"].strip(), diagnosis["en"].strip() or diagnosis["zh"].strip())
    elif diagnosis is None:
        found = None
    else:
        return None
    return CheckData(kind, started, found)


def one_mistake(named: list[tuple[str, str]]) -> tuple[str, str]:
    """The mistake of one answer, from the (Chinese, English) diagnoses its
    failing checks gave, in check order: the one most of them name (by
    ``mistake_key``), the first named of those on a tie."""
    counts = Counter(mistake_key(en) for _, en in named)
    most = max(counts.values())
    return next(d for d in named if counts[mistake_key(d[1])] == most)


def mistake_key(en: str) -> str:
    """What names one mistake in a diagnosis's English text: the text
    without what it quotes of the input the check used, in parentheses
    (``(C)``, ``(x.shape[-1])``), case and spacing aside. Two checks that
    find one mistake on two inputs say it with two quotes, not two names."""
    while True:
        plain = re.sub(r"\([^()]*\)", " ", en)
        if plain == en:
            break
        en = plain
    return " ".join(re.findall(r"\w+|[^\w\s]", en.casefold()))


def _missing(results: dict, exercises: list[str]) -> set[str]:
    """The exercises results.json says the submission has no file for."""
    extra = results.get("extra_data")
    missing = extra.get("missing") if isinstance(extra, dict) else None
    return {ex for ex in missing if ex in exercises} if isinstance(missing, list) else set()


# ----------------------------------------------------------------- reading


def _uncell(text: str) -> str:
    """Undo grades.csv's spreadsheet escape (``grades_csv.text_cell``): a text
    cell that had to be escaped got one ' in front, and so did one that
    started with ' already; no other cell starts with '."""
    return text[1:] if text.startswith("'") else text


def _float(value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return 0.0
    return x if math.isfinite(x) else 0.0


def _read_grades(out: str) -> tuple[list[Student], list[str], list[str]]:
    path = os.path.join(out, GRADES)
    if not os.path.isfile(path):
        raise NotBatchOutput(path)
    problems: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            rows = list(csv.reader(f))
    except csv.Error as exc:  # a NUL byte, say: not a file the batch wrote
        raise NotBatchOutput(path) from exc
    header = rows[0] if rows else []
    if len(header) < 3 or header[0] != "student_id" or header[-2:] != ["total", "note"]:
        raise NotBatchOutput(path)
    late = [c for c in header[1:-2] if c in LATE_COLUMNS]
    exercises = [c for c in header[1:-2] if c not in LATE_COLUMNS and c != NAME]
    students, seen = [], set()
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            problems.append(f"{GRADES} 第 {n} 行格式不对，已跳过 / line {n} has {len(row)} cells, not {len(header)}: skipped")
            continue
        sid = _uncell(row[0])
        if sid in seen:
            problems.append(f"{GRADES} 第 {n} 行重复 / line {n} repeats student {sid!r}: skipped")
            continue
        seen.add(sid)
        cells = dict(zip(header, row))
        points = {ex: _float(cells[ex]) for ex in exercises}
        students.append(Student(sid, points, _float(row[-2]), _uncell(row[-1]), late={c: _uncell(cells[c]) for c in late} or None, name=_uncell(cells.get(NAME, ""))))
    return students, exercises, problems


def _read_results(out: str, s: Student, problems: list[str]) -> dict | None:
    """The student's results.json, if it can be read; marks them graded when
    it is this run's (see the module's docstring), else says why not."""
    folder = os.path.join(out, safe_name(s.id))
    path = os.path.join(folder, RESULTS)
    if os.path.isfile(os.path.join(folder, FEEDBACK)):
        s.feedback = f"{safe_name(s.id)}/{FEEDBACK}"
    missing = "没有评分结果 / no results.json"
    try:
        if os.path.getsize(path) > MAX_RESULTS_BYTES:
            raise ValueError("too large")
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
        if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
            raise ValueError("not a results.json")
        results["tests"] = [t for t in results["tests"] if isinstance(t, dict)]
    except FileNotFoundError:
        s.why_not_graded = s.note or missing
        return None
    except (OSError, ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors; deep nesting recurses
        problems.append(f"{safe_name(s.id)}/{RESULTS} 无法读取，已跳过 / cannot be read, skipped: {type(exc).__name__}")
        s.why_not_graded = s.note or "评分结果无法读取 / results.json cannot be read"
        return None
    extra = results["extra_data"] if isinstance(results.get("extra_data"), dict) else {}
    got = _points(results["tests"], list(s.points))[0]
    if isinstance(extra.get("name"), str) and not s.name:
        s.name = extra["name"]
    if extra.get("student_id") != s.id:
        # Another id's folder (two ids one file system cannot tell apart), or not the batch's file.
        s.why_not_graded = s.note or "评分结果属于别的学生 / results.json is another student's"
        return None
    if not results["tests"] or not extra.get("submission_sha256"):
        s.why_not_graded = s.note or _summary(results) or missing
    elif any(abs(got[ex] - s.points[ex]) > 1e-6 for ex in s.points):
        # grades.csv is what the teacher hands in; a results.json that disagrees is an older run's.
        s.why_not_graded = s.note or "grades.csv 与评分结果不一致 / grades.csv and results.json disagree"
    else:
        s.graded = True
    return results


def _summary(results: dict) -> str:
    """results.json's top-level message as plain text (Gradescope's
    "simple_format" and "html" hold it HTML-escaped)."""
    text = str(results.get("output") or "")
    return html.unescape(text) if results.get("output_format") in ("simple_format", "html") else text


def _tags(test: dict) -> tuple[str, str]:
    """(exercise id, check id) of a results.json test."""
    tags = test.get("tags")
    tags = [str(x) for x in tags] if isinstance(tags, list) else []
    tags += [""] * (3 - len(tags))
    return tags[0], tags[2] or str(test.get("name", ""))


def _hidden(test: dict, data: CheckData | None) -> bool:
    if data is not None:
        return data.kind == "hidden"
    tags = test.get("tags")  # an older grader's results.json: its tags say it too
    return (isinstance(tags, list) and len(tags) > 1 and tags[1] == "hidden") or test.get("visibility") == "after_published"


def _title(test: dict, ex: str) -> str:
    name = str(test.get("name", ""))
    return name.removeprefix(f"{ex}: ")


def _points(tests: list, exercises: list[str]) -> tuple[dict, dict]:
    """Points got and points possible per exercise, as the batch sums them."""
    got = {ex: 0.0 for ex in exercises}
    most = {ex: 0.0 for ex in exercises}
    for t in tests:
        ex = _tags(t)[0]
        if ex in got:
            got[ex] += _float(t.get("score"))
            most[ex] += _float(t.get("max_score"))
    return got, most
