"""``python -m grader batch DIR --out OUT``: grade a class's submissions.

One submission per student in DIR: a folder or zip per student, nbgrader's
collected layout, or a Canvas or Moodle download, folder or zip (see
``downloads``; the first line says which it found). This process never
imports torch, the checks or the solutions: it finds the submissions, hands
them out one at a time to N worker processes (``batch_workers``) and writes
what comes back (``batch_output``): results.json and feedback.md per
student, and grades.csv. A process of its own writes nbgrader's
``gradebook.db`` (``gradebook``), so nbgrader's slow import overlaps the
grading; the progress line is ``progress``'s. With ``--db`` the grades go
into the course's own nbgrader gradebook instead (an SQLite file or any
SQLAlchemy URL), beside its other assignments.

With ``--policy course.toml`` (``late_policy``) each student's submission
time, from the best source there is (nbgrader's ``timestamp.txt``, Moodle's
grading worksheet given by ``--worksheet``, the policy's ``times`` file,
Canvas's LATE), costs the penalty the course set: grades.csv, the
feedback, the gradebook's ``late_submission_penalty`` and the class report
show it. A policy that cannot be used stops the batch before anyone is
graded.

An id refused for sharing its folder with another (``Entry.same_as``) gets
its row and nothing else under OUT.

A student is finished when ``<id>/results.json`` holds the hash of the
submission as it is now: running the same command again grades only the
others (``--force`` regrades everyone), and updates the gradebook in place.
"""
import collections
import fcntl
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time

from grader.engine import report
from grader.exercises import IDS
from grader.teacher import downloads
from grader.teacher.batch_output import GRADES, BatchOutput, ungradable_markdown
from grader.teacher.batch_workers import Worker
from grader.teacher.class_files import ClassFiles
from grader.teacher.gradebook import GradebookLink, db_name
from grader.teacher.lateness import LateInputError, Lateness
from grader.teacher.progress import Progress
from grader.text import count

GRADEBOOK = "gradebook.db"
LOCK = ".batch.lock"
WORK_PREFIX = ".work-"
STUDENT_SECONDS = 900  # a worker silent this long on one student is stopped (the grader's own limits come first)


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


def run(args) -> int:
    if not os.path.isdir(args.dir) and not (os.path.isfile(args.dir) and args.dir.lower().endswith(".zip")):
        return _usage(f"找不到文件夹或 zip / no such folder or zip: {args.dir}")
    try:
        lateness = Lateness.load(getattr(args, "policy", None), getattr(args, "worksheet", None))
    except LateInputError as exc:
        return _usage(f"未评分 / nothing graded: {exc}")
    jobs = args.jobs if args.jobs is not None else _cores()
    if jobs < 1:
        return _usage(f"--jobs 至少为 1 / --jobs must be at least 1 (got {jobs})")
    if args.threshold is not None and not 0 <= args.threshold <= 1:
        return _usage(f"--threshold 应在 0 到 1 之间 / --threshold must be between 0 and 1 (got {args.threshold:g})")
    db = getattr(args, "db", None)
    if db is not None and "://" not in db and not os.path.isfile(db):
        return _usage(
            f"找不到成绩册 / no such gradebook: {db} "
            "(--db 把成绩加进已有的成绩册；不加 --db 时写 OUT/gradebook.db / --db adds to an existing gradebook; without it the batch writes OUT/gradebook.db)"
        )
    out = os.path.abspath(args.out)
    sandbox = getattr(args, "sandbox", "auto")
    try:
        # Decided once, here: the workers inherit the answer (and the warning, given once).
        from grader.engine import sandbox as sandbox_mod

        sandbox_mod.choose(sandbox)
    except ImportError:
        sandbox = None
    except Exception as exc:  # noqa: BLE001 - SandboxUnavailable: --sandbox require without a sandbox
        return _usage(str(exc))
    real_out, real_dir = os.path.realpath(out), os.path.realpath(args.dir)
    if real_dir == real_out or real_dir.startswith(real_out + os.sep):
        return _usage("--out 不能是 DIR 或包含 DIR / --out must not be DIR or contain it")
    try:
        os.makedirs(out, exist_ok=True)
        lock = open(os.path.join(out, LOCK), "a")
    except OSError as exc:
        return _usage(f"无法写入 / cannot write to {args.out}: {exc.strerror}")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return _usage(f"另一个批量评分正在写入 / another batch is writing to {args.out}")
    # Work folders of batches that were killed: ours to remove, under the lock.
    for name in os.listdir(out):
        if name.startswith(WORK_PREFIX):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    work = tempfile.mkdtemp(prefix=WORK_PREFIX, dir=out)
    try:
        return _Batch(args, out, work, jobs, sandbox, lock, lateness).run()
    except KeyboardInterrupt:  # before grading started: nothing to keep
        _err("已中断 / interrupted")
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()


class _Batch:
    def __init__(self, args, out: str, work: str, jobs: int, sandbox: str | None, lock, lateness):
        self.args, self.out, self.work, self.jobs = args, out, work, jobs
        self.lateness = lateness  # a Lateness, or None without --policy
        self.late: dict[str, object] = {}  # student id -> late_policy.Late
        self.sandbox, self.lock = sandbox, lock
        # One secret for every worker: the whole class meets the same unseen inputs.
        self.inputs_seed = getattr(args, "inputs_seed", None)
        if self.inputs_seed is None:
            from grader.engine.grading import fresh_inputs_seed

            self.inputs_seed = fresh_inputs_seed()
        self.store = BatchOutput(out, args.assignment, late=lateness is not None)
        self.workers: list[Worker] = []
        self.gradebook = None
        self.graded = self.failed = self.spawned = 0
        self.said_unconfined = False  # the note that submission code is not fully confined, said once
        self.class_files = None  # the similarity check and the class report (class_files)
        self.report_seconds = None  # what they added at the end
        self.report_start = None

    def run(self) -> int:
        start = time.monotonic()
        found = downloads.read(self.args.dir, self.work, self.args.assignment, exclude=(self.out,))
        entries = found.entries
        print(f"读取 / reading {self.args.dir}: {found.described}", flush=True)
        for w in found.warnings:
            _err(w)
        if not entries:
            _err(f"没有找到提交 / no submissions found in {self.args.dir}")
        self.store.names = {e.student_id: e.name for e in entries if e.name}
        if self.lateness is not None:
            try:
                self.late = self.lateness.of(entries)
            except LateInputError as exc:
                _err(f"python -m grader batch: 错误 / error: 未评分 / nothing graded: {exc}")
                return 2
            print(f"迟交规则 / late policy: {self.lateness.policy.describe()}", flush=True)
            for line in self.lateness.warnings:
                _err(line)
        # Every student's row, skipped or not, is rewritten from what is known
        # now; rows of students no longer in DIR are left out.
        to_grade, skipped, ungradable = [], [], []
        for e in entries:
            if e.folder is None:
                ungradable.append(e)
            elif not self.args.force and (stored := self.store.stored(e)) is not None:
                skipped.append((e, stored))
            else:
                to_grade.append(e)
        db = getattr(self.args, "db", None)
        self.gradebook_name = db_name(db) if db else os.path.join(self.args.out, GRADEBOOK)
        due = self.lateness.policy.due if self.lateness is not None else None
        self.gradebook = GradebookLink(db or os.path.join(self.out, GRADEBOOK), self.args.assignment, [self.lock], existing=db is not None, due=due)
        if not self.args.no_report:
            # At work while the class is graded: see class_files.
            self.class_files = ClassFiles(entries, self.out, [self.lock] + ([self.gradebook.conn] if self.gradebook.conn else []), self.args.threshold)
        progress = Progress(len(entries), len(skipped) + len(ungradable), len(to_grade), self.jobs)
        code = 0
        interrupted = False
        old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            for e, stored in skipped:
                got = BatchOutput.points_of(stored)
                late = self.late.get(e.student_id)
                self.store.restate_late(e, stored, late)
                self.store.rows[e.student_id] = {"points": got, "note": e.note, "late": late}
                self.gradebook.send(e.student_id, got, stored.get("extra_data", {}).get("graded_at"), late and _late_for_gradebook(late, got))
                progress.line(f"跳过 / skip {e.student_id}: 已评分，提交未变 / already graded, same submission ({_num(sum(got.values()))})")
            if skipped:
                progress.line(f"跳过 {len(skipped)} 名已评分的学生；--force 重新评分 / skipped {len(skipped)} already graded (--force regrades them)")
            for e in ungradable:
                if e.same_as is None:  # else its folder would be another student's
                    self.store.write_student(e, report.ungradable_results(*e.note.split("; ")), ungradable_markdown(e.note), finished=False, quote_note=False)
                self.store.rows[e.student_id] = {"points": {ex: 0.0 for ex in IDS}, "note": e.note, "late": self.late.get(e.student_id)}
                self.gradebook.send(e.student_id, None)
                progress.line(f"✗ {e.student_id}: 无法评分 / not graded: {e.note}")
            self.store.write_csv()
            if to_grade:
                progress.line(f"评分 / grading {len(to_grade)} 名学生 / students with {count(min(self.jobs, len(to_grade)), 'worker')}")
                progress.start()
                code = self._grade_all(to_grade, progress)
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
            self._stop_workers()
            progress.close()
            self.gradebook.finish()
            signal.signal(signal.SIGTERM, old_term)
        if self.gradebook.error:
            _err(f"成绩册未写入 / gradebook not written ({self.gradebook_name}): {self.gradebook.error}")
        if interrupted:
            if self.class_files is not None:
                self.class_files.stop()  # no report of half a class
            _err(
                f"已中断 / interrupted: {self.graded} 名学生本次已评分并保存 / students graded this run are saved in {self.args.out}; "
                f"{len(to_grade) - self.graded} 名未评分 / not graded yet: 再次运行同一命令继续 / run the same command again to grade the rest"
            )
            return 130
        written = [os.path.join(self.args.out, name) for name in [GRADES, *self._class_files()]]
        if not self.gradebook.error:
            written.insert(1, self.gradebook_name)
        print(
            f"完成 / done: {len(entries)} 名学生 / students: 评分 / graded {self.graded}, 跳过 / skipped {len(skipped)}, "
            f"无法评分 / not graded {len(ungradable) + self.failed}; {time.monotonic() - start:.1f} s"
            + (f" (班级报告 / class report {self.report_seconds:.1f} s)" if self.report_seconds is not None else "")
            + " → "
            + ", ".join(written),
            flush=True,
        )
        return code

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
            _err(f"python -m grader report {self.args.out} 重写班级报告 / writes the class report again")
        self.report_seconds = time.monotonic() - start
        return written

    # -- the pool

    def _spawn(self) -> Worker | None:
        """A new worker, unless so many have died that another would too."""
        self.spawned += 1
        if self.spawned > self.max_spawn:
            return None
        inherited = [self.lock] + [w.conn for w in self.workers]
        if self.gradebook is not None and self.gradebook.conn is not None:
            inherited.append(self.gradebook.conn)
        if self.class_files is not None:
            inherited.append(self.class_files.conn)
        w = Worker(inherited, self.sandbox, self.work, self.inputs_seed)
        self.workers.append(w)
        return w

    def _grade_all(self, to_grade: list, progress: Progress) -> int:
        """Hand the students out to the workers, one at a time each, until
        every one has come back. A worker that dies is replaced; its student
        gets a row saying so (and is graded again by the next run)."""
        pending = collections.deque(to_grade)
        # Each student can cost at most one worker; a few more for workers that die idle.
        self.max_spawn = self.jobs + len(to_grade) + 10
        for _ in range(min(self.jobs, len(pending))):
            self._spawn()
        fatal = None
        while True:
            for w in list(self.workers):
                if w.entry is None and pending:
                    entry = pending.popleft()
                    try:
                        w.send(entry)
                    except OSError:  # it died while idle: another takes its place
                        w.entry = None
                        pending.appendleft(entry)
                        self._retire(w)
                        self._spawn()
            busy = [w for w in self.workers if w.entry is not None]
            if not busy:
                break
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            for w in busy:
                if w.conn in ready:
                    answer = w.receive()  # None: it died
                elif w.proc.sentinel in ready or time.monotonic() - w.since > STUDENT_SECONDS:
                    answer = None
                else:
                    continue
                entry, w.entry = w.entry, None
                took = time.monotonic() - w.since
                if answer is None:
                    self._failed(entry, "评分进程意外退出 / the grading process died", progress, took)
                    self._retire(w)
                    if pending:
                        self._spawn()
                elif answer[0] == "fatal":
                    # This worker could not even start a grader: the student goes back in line.
                    fatal = answer[1]
                    pending.appendleft(entry)
                    self._retire(w)
                elif answer[0] == "error":
                    _err(answer[1])
                    self._failed(entry, "评分程序出错 / grader error: " + (answer[1].strip().splitlines() or [""])[-1][:200], progress, took)
                else:
                    self._done(entry, answer[1], progress)
        if pending:  # no worker left to take them
            _err("评分程序无法启动 / the grader could not start:\n" + (fatal or "workers kept dying"))
            for entry in pending:
                self._failed(entry, "评分程序无法启动 / the grader could not start", progress)
            return 3
        return 0

    def _retire(self, w: Worker) -> None:
        w.stop(signal.SIGKILL)
        w.proc.join(5)
        w.conn.close()
        self.workers.remove(w)

    def _done(self, entry, payload: dict, progress: Progress) -> None:
        ok = not payload["errors"]
        note = entry.note
        if not ok:
            note = "; ".join(filter(None, [note, "评分程序出错，下次运行时重评 / grader error: regraded on the next run"]))
        got = {ex: float(p[0]) for ex, p in payload["points"].items()}
        most = {ex: float(p[1]) for ex, p in payload["points"].items()}
        late = self.late.get(entry.student_id)
        self.store.write_student(entry, payload["results"], payload["markdown"], finished=ok, late=late)
        self.store.row(entry.student_id, got, note, late)
        self.gradebook.send(entry.student_id, got, None, late and _late_for_gradebook(late, got))
        self.graded += ok
        self.failed += not ok
        total, best = sum(got.values()), sum(most.values())
        unconfined = payload["results"].get("extra_data", {}).get("unconfined")
        if unconfined and not self.said_unconfined:
            self.said_unconfined = True
            from grader.engine.grading import unconfined_note

            progress.line(unconfined_note(unconfined))
        progress.student(entry.student_id, f"{_num(total)}/{_num(best)} ({payload['seconds']:.1f} s)" + ("" if ok else " · " + note), not ok, payload["seconds"])

    def _failed(self, entry, why: str, progress: Progress, seconds: float = 0.0) -> None:
        """A submission the grader failed on: a row of zeros with the reason;
        no results.json hash, so the next run tries again."""
        note = "; ".join(filter(None, [entry.note, why + "；下次运行时重评 / regraded on the next run"]))
        self.store.row(entry.student_id, None, note, self.late.get(entry.student_id))
        self.failed += 1
        progress.student(entry.student_id, why, True, seconds)

    def _stop_workers(self) -> None:
        for w in self.workers:
            if w.entry is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            else:
                w.stop(signal.SIGINT)
        deadline = time.monotonic() + 10
        for w in self.workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.stop(signal.SIGKILL)
                w.proc.join()
            w.conn.close()
        self.workers.clear()


def _late_for_gradebook(late, got: dict) -> tuple[float, str]:
    """(penalty in points, submission time) as nbgrader's gradebook keeps them."""
    return late.penalty(sum(got.values())), late.submitted_at


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
