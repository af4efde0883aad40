"""``python -m grader batch DIR --out OUT``: grade a class's submissions.

The options are one ``batch_options.BatchOptions``, made from the command
line by ``run`` (a program calls ``grade_class`` with one of its own).

One submission per student in DIR: a folder or zip per student, nbgrader's
collected layout, or a Canvas or Moodle download, folder or zip (see
``downloads``; the first line says which it found). This process never
imports torch, the checks or the solutions: it finds the submissions, hands
them out one at a time to N worker processes (``batch_workers``: the
workers and their pool) and writes what comes back (``batch_output``):
results.json and feedback.md per student, and grades.csv, a
``grades_csv.GradeRow`` each. A process of its own writes nbgrader's
``gradebook.db`` (``gradebook``), so nbgrader's slow import overlaps the
grading; the progress line is ``progress``'s. With ``--db`` the grades go
into the course's own nbgrader gradebook instead (an SQLite file or any
SQLAlchemy URL), beside its other assignments.

With ``--policy course.toml`` (``late_policy``) each student's submission
time, from the best source there is (nbgrader's ``timestamp.txt``, Moodle's
grading worksheet given by ``--worksheet``, the policy's ``times`` file,
Canvas's LATE), costs the penalty the course set, worked out once in the
student's row (``grades_csv.LatePenalty``): grades.csv, the feedback,
results.json, the gradebook's ``late_submission_penalty`` and the class
report show that one. A policy that cannot be used stops the batch before
anyone is graded.

An id refused for sharing its folder with another (``Entry.same_as``) gets
its row and nothing else under OUT.

A student is finished when ``<id>/results.json`` holds the hash of the
submission as it is now: running the same command again grades only the
others (``--force`` regrades everyone), and updates the gradebook in place.
"""

import fcntl
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field

from grader.student import report
from grader.teacher.batch.gradebook import GradebookLink, db_name
from grader.teacher.batch.grades_csv import GradeRow
from grader.teacher.batch.options import BatchOptionError, BatchOptions
from grader.teacher.batch.output import GRADES, BatchOutput, ungradable_markdown
from grader.teacher.batch.progress import Progress
from grader.teacher.batch.workers import WorkerPool
from grader.teacher.intake import downloads
from grader.teacher.intake.submissions import notes_text
from grader.teacher.late.lateness import LateInputError, Lateness
from grader.teacher.late.policy import Late
from grader.teacher.report.class_files import ClassFiles
from grader.text import count

GRADEBOOK = "gradebook.db"
LOCK = ".batch.lock"
WORK_PREFIX = ".work-"


def _err(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _num(x: float) -> str:
    return f"{x:g}"


# -------------------------------------------------------------------- run


def _usage(message: str) -> int:
    _err(f"python -m grader batch: 错误 / error: {message}")
    return 2


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# A worker's start costs two imports of torch (its own and its zygote's), as
# much processor time as grading about ten submissions: a small class is
# graded sooner by fewer workers, which leave the other cores free.
STUDENTS_PER_WORKER = 8


def workers_for(students: int) -> int:
    """The workers a class of ``students`` gets when ``--jobs`` is not given:
    one per core, but no more than one per STUDENTS_PER_WORKER students."""
    return max(1, min(_cores(), math.ceil(students / STUDENTS_PER_WORKER)))


def run(args) -> int:
    """The command line's batch: argparse's namespace made a ``BatchOptions`` once, and graded."""
    try:
        options = BatchOptions.from_namespace(args)
    except BatchOptionError as exc:
        return _usage(str(exc))
    return grade_class(options)


def grade_class(options: BatchOptions) -> int:
    """Grade the class in ``options.dir`` into ``options.out``; the exit
    code (2: a usage error, nothing graded; 3: the grader could not start;
    130: interrupted, what was graded is kept)."""
    if not os.path.isdir(options.dir) and not (os.path.isfile(options.dir) and options.dir.lower().endswith(".zip")):
        return _usage(f"找不到文件夹或 zip / no such folder or zip: {options.dir}")
    try:
        lateness = Lateness.load(options.policy, options.worksheet)
    except LateInputError as exc:
        return _usage(f"未评分 / nothing graded: {exc}")
    db = options.db
    if db is not None and "://" not in db and not os.path.isfile(db):
        return _usage(
            f"找不到成绩册 / no such gradebook: {db} (--db 把成绩加进已有的成绩册；不加 --db 时写 OUT/gradebook.db / --db adds to an existing gradebook; without it the batch writes OUT/gradebook.db)"
        )
    try:
        sandbox = _choose_sandbox(options.sandbox)
    except Exception as exc:  # noqa: BLE001 - SandboxUnavailable: --sandbox require without a sandbox
        return _usage(str(exc))
    out = os.path.abspath(options.out)
    real_out, real_dir = os.path.realpath(out), os.path.realpath(options.dir)
    if real_dir == real_out or real_dir.startswith(real_out + os.sep):
        return _usage("--out 不能是 DIR 或包含 DIR / --out must not be DIR or contain it")
    lock = _lock(out, options.out)
    if isinstance(lock, str):
        return _usage(lock)
    _remove_old_work_folders(out)
    work = tempfile.mkdtemp(prefix=WORK_PREFIX, dir=out)
    try:
        return _Batch(options, out, work, options.jobs, sandbox, lock, lateness).run()
    except KeyboardInterrupt:  # before grading started: nothing to keep
        _err("已中断 / interrupted")
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()


def _choose_sandbox(sandbox: str) -> str | None:
    """Decided once, here: the workers inherit the answer (and the warning,
    given once). None where the sandbox module cannot be imported."""
    try:
        from grader.engine import sandbox as sandbox_mod

        sandbox_mod.choose(sandbox)
    except ImportError:
        return None
    return sandbox


def _lock(out: str, shown: str):
    """OUT's lock file, held: one batch writes to OUT at a time. A message
    (str) when OUT cannot be written or another batch holds it."""
    try:
        os.makedirs(out, exist_ok=True)
        lock = open(os.path.join(out, LOCK), "a")
    except OSError as exc:
        return f"无法写入 / cannot write to {shown}: {exc.strerror}"
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return f"另一个批量评分正在写入 / another batch is writing to {shown}"
    return lock


def _remove_old_work_folders(out: str) -> None:
    """Work folders of batches that were killed: ours to remove, under the lock."""
    for name in os.listdir(out):
        if name.startswith(WORK_PREFIX):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)


@dataclass
class _Plan:
    """What becomes of each student this run."""

    to_grade: list = field(default_factory=list)  # Entry each
    skipped: list = field(default_factory=list)  # (Entry, its stored results.json): graded before, the same submission
    ungradable: list = field(default_factory=list)  # Entry each, with no folder to grade


class _Batch:
    """One run of the batch over one class, and the processes it keeps."""

    def __init__(self, options: BatchOptions, out: str, work: str, jobs: int | None, sandbox: str | None, lock, lateness):
        """``jobs``: the workers asked for; None: as many as the class is worth (``workers_for``)."""
        self.options, self.out, self.work = options, out, work
        self.asked_jobs = jobs
        self.jobs = 0  # the workers, decided once the class is read (run)
        self.lateness = lateness  # a Lateness, or None without --policy
        self.late: dict[str, Late] = {}  # student id -> its lateness
        self.sandbox, self.lock = sandbox, lock
        # One secret for every worker: the whole class meets the same unseen inputs.
        self.inputs_seed = options.inputs_seed
        if self.inputs_seed is None:
            from grader.engine.grading import fresh_inputs_seed

            self.inputs_seed = fresh_inputs_seed()
        # Made by run(), in its order, before any method below uses them.
        self.store: BatchOutput
        self.progress: Progress
        self.gradebook: GradebookLink
        self.pool: WorkerPool | None = None  # while students are graded
        self.gradebook_name = ""
        self.graded = self.failed = 0
        self.said_unconfined = False  # the note that submission code is not fully confined, said once
        self.class_files: ClassFiles | None = None  # the similarity check and the class report (class_files)
        self.report_seconds: float | None = None  # what they added at the end
        self.report_start: float | None = None

    def run(self) -> int:
        """The batch, step by step; the exit code."""
        start = time.monotonic()
        entries = self._read_class()
        if not entries:
            return 1  # said by _read_class; nothing written: an empty grades.csv would look like a graded class
        if self.lateness is not None and not self._judge_lateness(entries):
            return 2
        self.store = BatchOutput(self.out, self.options.assignment, late=self.lateness is not None, named=any(e.name for e in entries))
        plan = self._plan(entries)
        self.jobs = workers_for(len(plan.to_grade)) if self.asked_jobs is None else self.asked_jobs
        self._open_gradebook()
        self._start_class_files(entries)
        self.progress = Progress(len(entries), len(plan.skipped) + len(plan.ungradable), len(plan.to_grade), self.jobs)
        code, interrupted = self._write_class(plan)
        if self.gradebook.error:
            _err(f"成绩册未写入 / gradebook not written ({self.gradebook_name}): {self.gradebook.error}")
        if interrupted:
            return self._say_interrupted(plan)
        self._say_done(entries, plan, start)
        return code

    def _read_class(self) -> list:
        found = downloads.read(self.options.dir, self.work, self.options.assignment, exclude=(self.out,))
        print(f"读取 / reading {self.options.dir}: {found.described}", flush=True)
        for w in found.warnings:
            _err(w)
        if not found.entries:
            _err(
                f"没有找到提交：{self.options.dir} 里应该每个学生一个文件夹或一个 zip（或者是 Canvas、Moodle 下载的 zip）\n"
                f"no submissions found in {self.options.dir}: it should hold one folder or one zip per student "
                f"(or be a Canvas or Moodle download)"
            )
        return found.entries

    def _judge_lateness(self, entries) -> bool:
        """Each student's ``late_policy.Late``; False (said why) when the
        policy cannot be applied to this class: nobody is graded."""
        try:
            self.late = self.lateness.of(entries)
        except LateInputError as exc:
            _err(f"python -m grader batch: 错误 / error: 未评分 / nothing graded: {exc}")
            return False
        print(f"迟交规则 / late policy: {self.lateness.policy.describe()}", flush=True)
        for line in self.lateness.warnings:
            _err(line)
        return True

    def _plan(self, entries) -> _Plan:
        """Who is graded now, who was before (the same submission; unless
        --force) and who cannot be. Every student's row, skipped or not, is
        written again from what is known now; rows of students no longer in
        DIR are left out."""
        plan = _Plan()
        for e in entries:
            if e.folder is None:
                plan.ungradable.append(e)
            elif not self.options.force and (stored := self.store.stored(e)) is not None:
                plan.skipped.append((e, stored))
            else:
                plan.to_grade.append(e)
        return plan

    def _open_gradebook(self) -> None:
        db = self.options.db
        self.gradebook_name = db_name(db) if db else os.path.join(self.options.out, GRADEBOOK)
        due = self.lateness.policy.due if self.lateness is not None else None
        self.gradebook = GradebookLink(db or os.path.join(self.out, GRADEBOOK), self.options.assignment, [self.lock], existing=db is not None, due=due)

    def _start_class_files(self, entries) -> None:
        """The similarity check and the class report, at work while the class is graded (see class_files)."""
        if not self.options.no_report:
            self.class_files = ClassFiles(entries, self.out, [self.lock] + ([self.gradebook.conn] if self.gradebook.conn else []), self.options.threshold)

    def _write_class(self, plan: _Plan) -> tuple[int, bool]:
        """Every student's row and files, then the class report's go; (exit
        code, interrupted). The workers, the progress line and the gradebook
        are closed whatever happens."""
        code, interrupted = 0, False
        old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            rows = self._restate_skipped(plan.skipped) + self._record_ungradable(plan.ungradable)
            self.store.add_rows(rows)
            if plan.to_grade:
                self.progress.line(f"评分 / grading {len(plan.to_grade)} 名学生 / students with {count(min(self.jobs, len(plan.to_grade)), 'worker')}")
                self.progress.start()
                self.pool = WorkerPool(self.jobs, self.sandbox, self.work, self.inputs_seed, self._open_elsewhere)
                code = self.pool.grade_all(plan.to_grade, self._done, self._failed)
            if self.class_files is not None:
                # Every row is written: the report (it reads grades.csv and the
                # results, not the gradebook) is drawn while the workers stop
                # and the gradebook finishes.
                self.report_start = time.monotonic()
                self.class_files.go()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean-up short
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            if self.pool is not None:
                self.pool.stop()
            self.progress.close()
            self.gradebook.finish()
            signal.signal(signal.SIGTERM, old_term)
        return code, interrupted

    def _restate_skipped(self, skipped: list) -> list[GradeRow]:
        """The rows of students graded before, from their stored results;
        their lateness restated where it is seen otherwise now."""
        rows = []
        for e, stored in skipped:
            row = GradeRow.of(e.student_id, BatchOutput.points_of(stored), e.notes, e.name, self.late.get(e.student_id))
            self.store.restate_late(e, stored, row.late)
            rows.append(row)
            self._send_to_gradebook(row, stored.get("extra_data", {}).get("graded_at"))
            self.progress.line(f"跳过 / skip {e.student_id}: 已评分，提交未变 / already graded, same submission ({_num(row.raw)})")
        if skipped:
            self.progress.line(f"跳过 {len(skipped)} 名已评分的学生；--force 重新评分 / skipped {len(skipped)} already graded (--force regrades them)")
        return rows

    def _record_ungradable(self, ungradable: list) -> list[GradeRow]:
        """A row of zeros each, and feedback saying why."""
        rows = []
        for e in ungradable:
            if e.same_as is None:  # else its folder would be another student's
                self.store.write_student(e, report.ungradable_results(*e.notes), ungradable_markdown(e.notes), finished=False, quote_notes=False)
            rows.append(GradeRow.of(e.student_id, None, e.notes, e.name, self.late.get(e.student_id)))
            self.gradebook.send(e.student_id, None)
            self.progress.line(f"✗ {e.student_id}: 无法评分 / not graded: {notes_text(e.notes)}")
        return rows

    def _send_to_gradebook(self, row: GradeRow, graded_at: str | None) -> None:
        self.gradebook.send(row.student_id, row.points, graded_at, row.late.for_gradebook() if row.late is not None else None)

    def _say_interrupted(self, plan: _Plan) -> int:
        if self.class_files is not None:
            self.class_files.stop()  # no report of half a class
        _err(
            f"已中断 / interrupted: {self.graded} 名学生本次已评分并保存 / students graded this run are saved in {self.options.out}; "
            f"{len(plan.to_grade) - self.graded} 名未评分 / not graded yet: 再次运行同一命令继续 / run the same command again to grade the rest"
        )
        return 130

    def _say_done(self, entries: list, plan: _Plan, start: float) -> None:
        class_files = self._class_files()
        written = [os.path.join(self.options.out, name) for name in [GRADES, *class_files]]
        if not self.gradebook.error:
            written.insert(1, self.gradebook_name)
        print(
            f"完成 / done: {len(entries)} 名学生 / students: 评分 / graded {self.graded}, 跳过 / skipped {len(plan.skipped)}, "
            f"无法评分 / not graded {len(plan.ungradable) + self.failed}; {time.monotonic() - start:.1f} s"
            + (f" (班级报告 / class report {self.report_seconds:.1f} s)" if self.report_seconds is not None else "")
            + " → "
            + ", ".join(written),
            flush=True,
        )
        self._say_similar(class_files)

    def _say_similar(self, class_files: list[str]) -> None:
        """Whether any pair was flagged as alike, as ``similar`` says it."""
        from grader.teacher.report import similar

        if similar.HTML_NAME not in class_files:
            return  # not checked (--no-report), or it failed and said so
        try:
            with open(os.path.join(self.out, similar.JSON_NAME), encoding="utf-8") as f:
                data = json.load(f)
            print(similar.summary(data, os.path.join(self.options.out, similar.HTML_NAME)), flush=True)
        except (OSError, ValueError, KeyError):
            pass  # the page is there; the line is a courtesy

    def _class_files(self) -> list[str]:
        """The similarity check and the class report, from what is in OUT
        now (skipped students included): their process has been at work
        since the grading began. Either may fail without costing the grades:
        it says why. Returns the names written under OUT."""
        if self.class_files is None:
            return []
        start = self.report_start or time.monotonic()
        written, problems = self.class_files.finish()
        for problem in problems:
            _err(problem)
        if not {"report.html", "report.md"} <= set(written):
            _err(f"python -m grader report {self.options.out} 重写班级报告 / writes the class report again")
        self.report_seconds = time.monotonic() - start
        return written

    # -- for the workers (batch_workers.WorkerPool)

    def _open_elsewhere(self) -> list:
        """What this process holds open besides the workers' pipes: a new
        worker closes its copies (the lock and the pipes must close when the
        batch does)."""
        held = [self.lock]
        if self.gradebook is not None and self.gradebook.conn is not None:
            held.append(self.gradebook.conn)
        if self.class_files is not None:
            held.append(self.class_files.conn)
        return held

    def _done(self, entry, payload: dict) -> None:
        """A graded student: their files, row and gradebook entry. Errors in
        the grading leave results.json without the hash: the next run grades
        them again."""
        ok = not payload["errors"]
        notes = entry.notes if ok else [*entry.notes, "评分程序出错，下次运行时重评 / grader error: regraded on the next run"]
        got = {ex: float(p[0]) for ex, p in payload["points"].items()}
        most = {ex: float(p[1]) for ex, p in payload["points"].items()}
        row = GradeRow.of(entry.student_id, got, notes, entry.name, self.late.get(entry.student_id))
        self.store.write_student(entry, payload["results"], payload["markdown"], finished=ok, late=row.late)
        self.store.add_row(row)
        self._send_to_gradebook(row, None)
        self.graded += ok
        self.failed += not ok
        unconfined = payload["results"].get("extra_data", {}).get("unconfined")
        if unconfined and not self.said_unconfined:
            self.said_unconfined = True
            from grader.engine.grading import unconfined_note

            self.progress.line(unconfined_note(unconfined))
        # The total grades.csv holds: after a late penalty, which is said beside it.
        late = f" (迟交 / late −{_num(row.raw - row.total)})" if row.late is not None and row.total != row.raw else ""
        score = f"{_num(row.total)}/{_num(sum(most.values()))}{late} ({payload['seconds']:.1f} s)"
        self.progress.student(entry.student_id, score + ("" if ok else " · " + notes_text(notes)), not ok, payload["seconds"])

    def _failed(self, entry, why: str, seconds: float = 0.0) -> None:
        """A submission the grader failed on: a row of zeros with the reason;
        no results.json hash, so the next run tries again."""
        notes = [*entry.notes, why + "；下次运行时重评 / regraded on the next run"]
        self.store.add_row(GradeRow.of(entry.student_id, None, notes, entry.name, self.late.get(entry.student_id)))
        self.failed += 1
        self.progress.student(entry.student_id, why, True, seconds)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
