"""``python -m grader batch DIR --out OUT``: grade a class's submissions.

One submission per student in DIR (see ``intake``). The parent process never
imports torch, the checks or the solutions: it finds the submissions, hands
them out one at a time to N worker processes and writes what comes back. Each
worker owns one ``Grader`` (its own clean zygote) and one pytest session
(``Grader.grade_each``) for all the students it grades. A separate process writes the nbgrader gradebook (``gradebook``), so
nbgrader's slow import overlaps the grading.

Under OUT, written atomically as each student finishes:

- ``<id>/results.json``: what ``grade --json`` writes, with the submission's
  content hash in ``extra_data``;
- ``<id>/feedback.md``: the student's feedback;
- ``grades.csv``: one row per finished student, sorted by id; a text cell a
  spreadsheet could take for a formula starts with ``'`` (``_text_cell``);
- ``gradebook.db``: nbgrader's gradebook (when nbgrader is installed).

``<id>`` is ``intake.safe_name(id)``. An id refused for sharing its folder with
another (``Entry.same_as``) gets its row and nothing else under OUT.

A student is finished when ``<id>/results.json`` holds the hash of the
submission as it is now: running the same command again grades only the
others (``--force`` regrades everyone), and updates the gradebook in place.
"""
import collections
import csv
import ctypes
import datetime
import fcntl
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

from grader import intake, report
from grader.exercises import IDS

RESULTS = "results.json"
FEEDBACK = "feedback.md"
GRADES = "grades.csv"
GRADEBOOK = "gradebook.db"
LOCK = ".batch.lock"
WORK_PREFIX = ".work-"
STUDENT_SECONDS = 900  # a worker silent this long on one student is stopped (the grader's own limits come first)
_CTX = multiprocessing.get_context("fork")


def _err(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _num(x: float) -> str:
    return f"{x:g}"


# What a spreadsheet may read as the start of a formula (OWASP's list for CSV
# injection); and ', so that the escape can always be undone.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def _text_cell(text: str) -> str:
    """A text cell of grades.csv that no spreadsheet evaluates: one that
    starts with = + - @ tab or CR, also after spaces (an import may trim
    them), gets a ' in front, as OWASP recommends; so does one that starts
    with ' (the original is the cell without its first ' in every case).
    Numbers are not text cells: they stay as they are."""
    return "'" + text if text.lstrip(" ").startswith(FORMULA_START) else text


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# ----------------------------------------------------------------- workers


def _die_with_parent(sig: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, sig, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker(conn, parent_pid: int, inherited, sandbox: str | None, work: str, inputs_seed: int | None) -> None:
    """A worker process: one Grader, then students until told to stop.

    Ctrl-C (or the parent's death) interrupts the grading under way (pytest
    stops, the grader cleans up its children) and the worker leaves without
    answering. Its temporary files go under the batch's work folder, which
    the batch removes (or the next batch, if this one was killed)."""
    for c in inherited:  # the parent's ends of other pipes: they must close when the parent does
        c.close()
    try:
        # A process group of its own: a submission that kills its grader's
        # group (possible without the sandbox) takes this worker, not the batch.
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    interrupted = []

    def on_sigint(signum, frame):
        interrupted.append(signum)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # once is enough: let the clean-up run
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    _die_with_parent(signal.SIGINT)
    if os.getppid() != parent_pid:
        return
    try:
        tempfile.tempdir = tempfile.mkdtemp(prefix="worker-", dir=work)
    except OSError:
        pass
    grader = None
    try:
        try:
            from grader.grading import Grader, Job

            options = {} if sandbox is None else {"sandbox": sandbox}
            grader = Grader(many=True, inputs_seed=inputs_seed, **options)
        except Exception:  # noqa: BLE001 - reported, and this worker stops
            conn.send(("fatal", traceback.format_exc(limit=5)))
            return
        def students():
            while not interrupted:
                task = conn.recv()
                if task is None:
                    return
                student_id, folder, display = task
                yield Job(folder, display, key=student_id)

        def send(job, grade) -> None:
            if interrupted:
                raise KeyboardInterrupt
            if isinstance(grade, BaseException):  # the grader failed on this student: say so, go on
                conn.send(("error", job.key, "".join(traceback.format_exception(grade, limit=5))))
                return
            payload = {
                "results": report.results_json(grade),
                "markdown": report.markdown(grade),
                "points": {ex: grade.exercise_points(ex) for ex in IDS},
                "errors": list(grade.errors),
                "seconds": grade.seconds,
            }
            conn.send(("done", job.key, payload))

        # One pytest session for every student this worker grades.
        grader.grade_each(students(), send)
    except (KeyboardInterrupt, EOFError, OSError):
        pass
    finally:
        if grader is not None:
            try:
                grader.close()
            except BaseException:  # noqa: BLE001 - leaving anyway
                pass


class _Worker:
    def __init__(self, inherited, sandbox: str | None, work: str, inputs_seed: int | None):
        self.conn, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=_worker, args=(child, os.getpid(), [self.conn, *inherited], sandbox, work, inputs_seed), daemon=True)
        self.proc.start()
        child.close()
        self.entry = None
        self.since = 0.0

    def send(self, entry) -> None:
        self.entry, self.since = entry, time.monotonic()
        self.conn.send((entry.student_id, entry.folder, entry.display))

    def stop(self, sig=signal.SIGINT) -> None:
        if self.proc.is_alive():
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass


# ------------------------------------------------------------- gradebook


def _gradebook_main(conn, path: str, assignment: str, inherited) -> None:
    for c in inherited:
        c.close()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from grader import gradebook

    gradebook.serve(conn, path, assignment)


class _GradebookLink:
    """The parent's end of the gradebook process; does nothing when nbgrader
    is not installed."""

    def __init__(self, path: str, assignment: str, inherited):
        from grader import gradebook

        self.conn = self.proc = None
        self.error = None
        if not gradebook.available():
            self.error = "nbgrader 未安装 / nbgrader is not installed (tox -e teacher installs it)"
            return
        self.conn, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=_gradebook_main, args=(child, path, assignment, [self.conn, *inherited]), daemon=True)
        self.proc.start()
        child.close()

    def send(self, student_id: str, points, maxima, timestamp=None) -> None:
        if self.conn is None:
            return
        try:
            self.conn.send(("student", student_id, points, maxima, timestamp))
        except OSError as exc:
            self.error = f"the gradebook process stopped ({exc})"
            self.conn = None

    def finish(self, timeout: float = 120.0) -> None:
        if self.conn is None:
            return
        try:
            self.conn.send(("done",))
            if self.conn.poll(timeout):
                status, detail = self.conn.recv()
                if status != "ok":
                    self.error = detail
            else:
                self.error = f"the gradebook was not written within {timeout:g} s"
        except (OSError, EOFError) as exc:
            self.error = f"the gradebook process stopped ({exc})"
        finally:
            self.conn.close()
            self.conn = None
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()


# -------------------------------------------------------------- progress


class _Progress:
    """students done / total, failures so far, time left: redrawn in place on
    a terminal, one line per student otherwise."""

    def __init__(self, total: int, done: int, to_grade: int, jobs: int = 1, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.total, self.done, self.failed = total, done, 0
        self.to_grade, self.graded, self.jobs = to_grade, 0, max(1, min(jobs, to_grade))
        self.seconds = 0.0  # grading time of the students so far, as the workers measured it
        self.shown = False

    def _eta(self) -> str:
        left = self.to_grade - self.graded
        if left <= 0:
            return "0:00"
        if not self.graded:
            return "?"
        # Students still to come, shared by the workers, at the mean time per student so far.
        secs = int(-(-left // self.jobs) * self.seconds / self.graded + 0.5)
        return f"{secs // 60}:{secs % 60:02d}"

    def _status(self) -> str:
        return f"{self.done}/{self.total} · 失败 / failed {self.failed} · 剩余约 / about {self._eta()} left"

    def line(self, text: str) -> None:
        """A line of its own (a skipped student, a warning)."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        if self.tty and self.shown:
            self._bar()
        self.stream.flush()

    def _bar(self) -> None:
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {self._status()}\x1b[K")
        self.shown = True

    def start(self) -> None:
        if self.tty:
            self._bar()
            self.stream.flush()

    def student(self, student_id: str, summary: str, failed: bool, seconds: float = 0.0) -> None:
        self.done += 1
        self.graded += 1
        self.failed += failed
        self.seconds += seconds
        if self.tty:
            if failed:
                self.line(f"✗ {student_id}: {summary}")
            self._bar()
        else:
            self.stream.write(f"[{self.done}/{self.total}] {student_id}: {summary} · {self._status()}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()


# ----------------------------------------------------------------- output


class _Out:
    """Everything the batch writes under OUT."""

    def __init__(self, out: str, assignment: str):
        self.out, self.assignment = out, assignment
        self.rows: dict[str, dict] = {}

    def folder(self, student_id: str) -> str:
        return os.path.join(self.out, intake.safe_name(student_id))

    def stored(self, entry) -> dict | None:
        """The results.json of this very submission, if it has been graded."""
        path = os.path.join(self.folder(entry.student_id), RESULTS)
        try:
            if os.path.getsize(path) > 64 * 1024**2:
                return None
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        extra = data.get("extra_data") if isinstance(data, dict) else None
        if not isinstance(extra, dict) or extra.get("submission_sha256") != entry.digest or entry.digest is None:
            return None
        if not isinstance(data.get("tests"), list):
            return None
        return data

    @staticmethod
    def points_of(results: dict) -> tuple[dict, dict]:
        got = {ex: 0.0 for ex in IDS}
        most = {ex: 0.0 for ex in IDS}
        for t in results.get("tests", []):
            try:
                ex = t["tags"][0]
                if ex in got:
                    got[ex] += float(t["score"])
                    most[ex] += float(t["max_score"])
            except (KeyError, IndexError, TypeError, ValueError):
                continue
        return got, most

    def row(self, student_id: str, points: dict | None, note: str) -> None:
        points = points or {ex: 0.0 for ex in IDS}
        self.rows[student_id] = {"points": points, "note": note}
        self.write_csv()

    def write_csv(self) -> None:
        buf = io.StringIO()
        # RFC 4180's line ends: the csv module quotes a cell with a CR in it
        # only when CR is part of the line terminator (else the row splits).
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(["student_id", *IDS, "total", "note"])
        for sid in sorted(self.rows):
            r = self.rows[sid]
            w.writerow([_text_cell(sid), *(_num(r["points"][ex]) for ex in IDS), _num(sum(r["points"].values())), _text_cell(r["note"])])
        report.write_atomically(os.path.join(self.out, GRADES), buf.getvalue())

    def write_student(self, entry, results: dict, markdown: str, finished: bool, quote_note: bool = True) -> None:
        """feedback.md, then results.json last: results.json with the hash is
        what marks the student finished."""
        folder = self.folder(entry.student_id)
        results = dict(results)
        results["extra_data"] = {
            **results.get("extra_data", {}),  # the grader's own (the inputs seed)
            "student_id": entry.student_id,
            "assignment": self.assignment,
            "submission": entry.display,
            "submission_sha256": entry.digest if finished else None,
            "graded_at": _now(),
            "note": entry.note,
        }
        if entry.note and quote_note:
            markdown = _with_note(markdown, entry.note)
        report.write_atomically(os.path.join(folder, FEEDBACK), markdown)
        report.write_atomically(os.path.join(folder, RESULTS), json.dumps(results, ensure_ascii=False, indent=2) + "\n")


def _with_note(markdown: str, note: str) -> str:
    lines = markdown.split("\n")
    block = ["", "> 收作业时发现 / found when collecting your submission:", ">"]
    block += [f"> - {part}" for part in note.split("; ")]
    return "\n".join(lines[:1] + block + lines[1:])


def _ungradable_markdown(note: str) -> str:
    return "\n".join(
        [
            "# 评分反馈 / Feedback",
            "",
            "总分 / total: **0**",
            "",
            "你的提交无法评分 / your submission could not be graded:",
            "",
            *(f"- {part}" for part in note.split("; ")),
            "",
        ]
    )


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
    if not os.path.isdir(args.dir):
        return _usage(f"找不到文件夹 / no such folder: {args.dir}")
    jobs = args.jobs if args.jobs is not None else _cores()
    if jobs < 1:
        return _usage(f"--jobs 至少为 1 / --jobs must be at least 1 (got {jobs})")
    out = os.path.abspath(args.out)
    sandbox = getattr(args, "sandbox", "auto")
    try:
        # Decided once, here: the workers inherit the answer (and the warning, given once).
        from grader import sandbox as sandbox_mod

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
        return _Batch(args, out, work, jobs, sandbox, lock).run()
    except KeyboardInterrupt:  # before grading started: nothing to keep
        _err("已中断 / interrupted")
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()


class _Batch:
    def __init__(self, args, out: str, work: str, jobs: int, sandbox: str | None, lock):
        self.args, self.out, self.work, self.jobs = args, out, work, jobs
        self.sandbox, self.lock = sandbox, lock
        # One secret for every worker: the whole class meets the same unseen inputs.
        self.inputs_seed = getattr(args, "inputs_seed", None)
        if self.inputs_seed is None:
            from grader.grading import fresh_inputs_seed

            self.inputs_seed = fresh_inputs_seed()
        self.store = _Out(out, args.assignment)
        self.workers: list[_Worker] = []
        self.gradebook = None
        self.graded = self.failed = self.spawned = 0

    def run(self) -> int:
        start = time.monotonic()
        entries, warnings = intake.discover(self.args.dir, self.work, self.args.assignment, exclude=(self.out,))
        for w in warnings:
            _err(w)
        if not entries:
            _err(f"没有找到提交 / no submissions found in {self.args.dir}")
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
        self.gradebook = _GradebookLink(os.path.join(self.out, GRADEBOOK), self.args.assignment, [self.lock])
        progress = _Progress(len(entries), len(skipped) + len(ungradable), len(to_grade), self.jobs)
        code = 0
        interrupted = False
        old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            for e, stored in skipped:
                got, most = _Out.points_of(stored)
                self.store.rows[e.student_id] = {"points": got, "note": e.note}
                self.gradebook.send(e.student_id, got, most, stored.get("extra_data", {}).get("graded_at"))
                progress.line(f"跳过 / skip {e.student_id}: 已评分，提交未变 / already graded, same submission ({_num(sum(got.values()))})")
            if skipped:
                progress.line(f"跳过 {len(skipped)} 名已评分的学生；--force 重新评分 / skipped {len(skipped)} already graded (--force regrades them)")
            for e in ungradable:
                if e.same_as is None:  # else its folder would be another student's
                    self.store.write_student(e, {"score": 0.0, "execution_time": 0.0, "output": e.note, "tests": []}, _ungradable_markdown(e.note), finished=False, quote_note=False)
                self.store.rows[e.student_id] = {"points": {ex: 0.0 for ex in IDS}, "note": e.note}
                self.gradebook.send(e.student_id, None, None)
                progress.line(f"✗ {e.student_id}: 无法评分 / not graded: {e.note}")
            self.store.write_csv()
            if to_grade:
                progress.line(f"评分 / grading {len(to_grade)} 名学生 / students with {min(self.jobs, len(to_grade))} workers")
                progress.start()
                code = self._grade_all(to_grade, progress)
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
            _err(f"gradebook.db 未写入 / not written: {self.gradebook.error}")
        if interrupted:
            _err(
                f"已中断 / interrupted: {self.graded} 名学生本次已评分并保存 / students graded this run are saved in {self.args.out}; "
                f"{len(to_grade) - self.graded} 名未评分 / not graded yet: 再次运行同一命令继续 / run the same command again to grade the rest"
            )
            return 130
        print(
            f"完成 / done: {len(entries)} 名学生 / students: 评分 / graded {self.graded}, 跳过 / skipped {len(skipped)}, "
            f"无法评分 / not graded {len(ungradable) + self.failed}; {time.monotonic() - start:.1f} s → "
            f"{os.path.join(self.args.out, GRADES)}" + ("" if self.gradebook.error else f", {os.path.join(self.args.out, GRADEBOOK)}"),
            flush=True,
        )
        return code

    # -- the pool

    def _spawn(self) -> _Worker | None:
        """A new worker, unless so many have died that another would too."""
        self.spawned += 1
        if self.spawned > self.max_spawn:
            return None
        inherited = [self.lock] + [w.conn for w in self.workers]
        if self.gradebook is not None and self.gradebook.conn is not None:
            inherited.append(self.gradebook.conn)
        w = _Worker(inherited, self.sandbox, self.work, self.inputs_seed)
        self.workers.append(w)
        return w

    def _grade_all(self, to_grade: list, progress: _Progress) -> int:
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
                msg, dead = None, False
                if w.conn in ready:
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        dead = True
                elif w.proc.sentinel in ready:
                    dead = True
                elif time.monotonic() - w.since > STUDENT_SECONDS:
                    dead = True
                else:
                    continue
                entry, w.entry = w.entry, None
                took = time.monotonic() - w.since
                if msg is not None and msg[0] == "fatal":
                    # This worker could not even start a grader: the student goes back in line.
                    fatal = msg[1]
                    pending.appendleft(entry)
                    self._retire(w)
                elif dead:
                    self._failed(entry, "评分进程意外退出 / the grading process died", progress, took)
                    self._retire(w)
                    if pending:
                        self._spawn()
                elif msg[0] == "error":
                    _err(msg[2])
                    self._failed(entry, "评分程序出错 / grader error: " + (msg[2].strip().splitlines() or [""])[-1][:200], progress, took)
                else:
                    self._done(entry, msg[2], progress)
        if pending:  # no worker left to take them
            _err("评分程序无法启动 / the grader could not start:\n" + (fatal or "workers kept dying"))
            for entry in pending:
                self._failed(entry, "评分程序无法启动 / the grader could not start", progress)
            return 3
        return 0

    def _retire(self, w: _Worker) -> None:
        w.stop(signal.SIGKILL)
        w.proc.join(5)
        w.conn.close()
        self.workers.remove(w)

    def _done(self, entry, payload: dict, progress: _Progress) -> None:
        ok = not payload["errors"]
        note = entry.note
        if not ok:
            note = "; ".join(filter(None, [note, "评分程序出错，下次运行时重评 / grader error: regraded on the next run"]))
        got = {ex: float(p[0]) for ex, p in payload["points"].items()}
        most = {ex: float(p[1]) for ex, p in payload["points"].items()}
        self.store.write_student(entry, payload["results"], payload["markdown"], finished=ok)
        self.store.row(entry.student_id, got, note)
        self.gradebook.send(entry.student_id, got, most)
        self.graded += ok
        self.failed += not ok
        total, best = sum(got.values()), sum(most.values())
        progress.student(entry.student_id, f"{_num(total)}/{_num(best)} ({payload['seconds']:.1f} s)" + ("" if ok else " · " + note), not ok, payload["seconds"])

    def _failed(self, entry, why: str, progress: _Progress, seconds: float = 0.0) -> None:
        """A submission the grader failed on: a row of zeros with the reason;
        no results.json hash, so the next run tries again."""
        note = "; ".join(filter(None, [entry.note, why + "；下次运行时重评 / regraded on the next run"]))
        self.store.row(entry.student_id, None, note)
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


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
