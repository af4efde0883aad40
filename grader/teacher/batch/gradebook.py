"""The batch's nbgrader gradebook: ``OUT/gradebook.db``, an SQLite database
that nbgrader's own tools read (``nbgrader export``, the formgrader), or with
``batch --db`` the course's own gradebook (an SQLite file, or PostgreSQL as
JupyterHub deployments have it), where other assignments are.

Layout: one assignment (``--assignment``, default ``attention``) with one
notebook (``exercises``) holding one autograded grade cell per exercise, whose
max score is that exercise's points in ``grader/exercises.py`` (all cells exist
before the first submission); one student per submission and, for each
graded student, a submission whose grades carry the grader's points as
``auto_score``. With a late policy, the assignment's ``duedate`` is the
deadline, the submission's ``timestamp`` the time it was handed in, and its
notebook's ``late_submission_penalty`` the points it cost, as nbgrader's own
late plugin keeps them (``nbgrader export`` subtracts it from the score). Every write is an update in place: running the batch again
never adds a second row for anything. Nothing is written outside this
assignment: other assignments, and the students' names and emails, stay as
they were. An assignment of that name that nbgrader's own commands made (its
notebooks are not ``exercises``) is refused, not mixed with this layout.

nbgrader is imported only here (importing it costs seconds), and only in the
process that writes the gradebook (``serve``), so its import overlaps the
grading; that process imports only the part of it the gradebook needs
(``_light_import``). The batch talks to that process through ``GradebookLink``: both
ends of the pipe, and so its messages, are in this module.
"""

import datetime
import multiprocessing
import os
import signal
import sys
import tempfile

from grader.exercises import EXERCISES

NOTEBOOK = "exercises"


def available() -> bool:
    """Whether nbgrader is installed, without importing it."""
    import importlib.util

    try:
        return importlib.util.find_spec("nbgrader") is not None
    except (ImportError, ValueError):
        return False


def _version_in_process(api) -> None:
    """A new gradebook is stamped with the head of nbgrader's database
    migrations, which nbgrader finds by running the ``alembic`` command in a
    subprocess: a second interpreter importing alembic and SQLAlchemy, about
    4.5 s of CPU taken from the grading. Alembic's own ``ScriptDirectory``
    reads the same head in-process; nbgrader's way stays the fallback."""
    original = api.get_alembic_version
    if getattr(original, "in_process", False):
        return

    def head() -> str:
        try:
            from alembic.script import ScriptDirectory

            found = ScriptDirectory(os.path.join(os.path.dirname(api.__file__), "alembic")).get_current_head()
            if found:
                return found
        except Exception:  # noqa: BLE001 - another nbgrader layout: ask it the slow way
            pass
        return original()

    setattr(head, "in_process", True)  # patched once: _version_in_process looks for it
    api.get_alembic_version = head


def db_url(target: str) -> str:
    """An SQLAlchemy URL: ``target`` itself, or the SQLite file at that path."""
    return target if "://" in target else "sqlite:///" + os.path.abspath(target)


def db_name(target: str) -> str:
    """``target`` as the batch may print it: a URL without its password."""
    if "://" not in target:
        return target
    try:
        from sqlalchemy.engine import make_url

        return make_url(target).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL SQLAlchemy reads: the writer will say so
        return target.split("://", 1)[0] + "://..."


def _utc(t: datetime.datetime) -> datetime.datetime:
    """As nbgrader stores times: UTC, without a zone."""
    return t.astimezone(datetime.timezone.utc).replace(tzinfo=None)


class AssignmentTaken(Exception):
    pass


class GradebookWriter:
    def __init__(self, path: str, assignment: str, existing: bool = False, due: datetime.datetime | None = None):
        """``path``: the batch's own gradebook, made here if missing; with
        ``existing``, a gradebook (path or URL) the course already has.
        ``due``: the late policy's deadline."""
        # nbgrader runs its ``alembic`` script by name when it creates a
        # database: find it beside this interpreter even outside an activated
        # environment.
        bindir = os.path.dirname(sys.executable)
        if bindir not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
        import nbgrader.api
        from nbgrader.api import Gradebook

        _version_in_process(nbgrader.api)
        if not existing and not os.path.exists(path):
            # nbgrader makes a new database in steps (tables, then its
            # version): make it beside the real name and rename it, so a
            # batch killed meanwhile never leaves half a gradebook.
            fd, tmp = tempfile.mkstemp(prefix=".gradebook-", suffix=".db", dir=os.path.dirname(os.path.abspath(path)))
            os.close(fd)
            os.unlink(tmp)
            try:
                Gradebook(db_url(tmp)).close()
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        self.gb = Gradebook(db_url(path))
        self.assignment = assignment
        other = self._notebooks_of(assignment) - {NOTEBOOK}
        if other:
            raise AssignmentTaken(
                f"成绩册里的作业 {assignment} 是 nbgrader 自己的（笔记本 {', '.join(sorted(other))}）：请用 --assignment 换个名字\n"
                f"the gradebook's assignment {assignment} is nbgrader's own (notebooks {', '.join(sorted(other))}): "
                "choose another name with --assignment"
            )
        self.gb.update_or_create_assignment(assignment, **({"duedate": _utc(due)} if due else {}))
        self.gb.update_or_create_notebook(NOTEBOOK, assignment)
        # One grade cell per exercise, registered before any submission is
        # created (nbgrader gives a new submission a grade for each cell that
        # exists at that moment); an older gradebook's cells are updated.
        for e in EXERCISES:
            self.gb.update_or_create_grade_cell(e.id, NOTEBOOK, assignment, max_score=float(e.points), cell_type="code")

    def _notebooks_of(self, assignment: str) -> set[str]:
        from nbgrader.api import MissingEntry

        try:
            return {nb.name for nb in self.gb.find_assignment(assignment).notebooks}
        except MissingEntry:
            return set()

    def record(self, student_id: str, points: dict[str, float] | None, timestamp: str | None = None, late: tuple[float, str] | None = None) -> None:
        """Create or update ``student_id`` and, when ``points`` is given
        (exercise id -> points), their submission's auto scores. A student who
        could not be graded is listed without a submission (nbgrader exports
        that as 0). ``late``: (penalty in points, the time handed in or "")."""
        from nbgrader.api import Grade, MissingEntry

        gb = self.gb
        gb.update_or_create_student(student_id)
        if points is None:
            try:
                gb.find_submission(self.assignment, student_id)
            except MissingEntry:
                return
            gb.remove_submission(self.assignment, student_id)
            return
        when: str | datetime.datetime = timestamp or datetime.datetime.now(datetime.timezone.utc).isoformat()
        if late and late[1]:
            when = _utc(datetime.datetime.fromisoformat(late[1]))
        submission = gb.update_or_create_submission(self.assignment, student_id, timestamp=when)
        notebook = gb.find_submission_notebook(NOTEBOOK, self.assignment, student_id)
        notebook.late_submission_penalty = late[0] if late else None
        # The notebook's grades in one query, not one query per exercise.
        grades = {g.name: g for g in notebook.grades}
        for ex, got in points.items():
            grade = grades.get(ex)
            if grade is None:
                # A cell registered after this submission was first created
                # (an older gradebook): give the submission its grade row.
                cell = gb.find_grade_cell(ex, NOTEBOOK, self.assignment)
                grade = Grade(cell_id=cell.id, notebook=notebook)
                gb.db.add(grade)
            grade.auto_score = float(got)
            grade.manual_score = None
            grade.needs_manual_grade = False
        del submission
        gb.db.commit()

    def close(self) -> None:
        self.gb.close()


def serve(conn, path: str, assignment: str, existing: bool = False, due=None) -> None:
    """The gradebook process: receive ``("student", id, points, timestamp, late)``
    messages until ``("done",)``, then answer ``("ok", n)`` or
    ``("error", text)``. It ignores Ctrl-C: the batch tells it when to stop,
    after the last finished student has been sent."""
    import traceback
    import warnings

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.simplefilter("ignore")  # SQLAlchemy's warnings about nbgrader's own code
    writer, error, count = None, None, 0
    try:
        writer = GradebookWriter(path, assignment, existing, due)
    except AssignmentTaken as exc:
        error = str(exc)
    except Exception:  # noqa: BLE001 - reported to the batch, which goes on without a gradebook
        error = traceback.format_exc(limit=3)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg[0] == "done":
            break
        if writer is None:
            continue
        try:
            _, student_id, points, timestamp, late = msg
            writer.record(student_id, points, timestamp, late)
            count += 1
        except Exception:  # noqa: BLE001 - the gradebook's error is reported once, after the batch; grading goes on
            error = error or traceback.format_exc(limit=3)
            try:
                writer.gb.db.rollback()
            except Exception:  # noqa: BLE001 - rolling back what failed; the first error is the one reported
                pass
    if writer is not None:
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - closing after an error already reported
            pass
    try:
        conn.send(("error", error) if error else ("ok", count))
    except (OSError, BrokenPipeError):
        pass


_CTX = multiprocessing.get_context("fork")


def _light_import() -> None:
    """Prepare this process to import ``nbgrader.api`` without what the
    gradebook never uses; called only in the gradebook's own process.

    ``import nbgrader.api`` first runs the package's ``__init__``, which
    loads nbgrader's Jupyter server extensions (tornado, jupyter_server...),
    and nbformat's import of jsonschema builds an Earley parser for IRIs
    (``rfc3987_syntax``, 2.2 s alone; ``notebook_source.without_iri_parser``):
    3 s of the 4 s of CPU the import cost, taken from the graders while the
    class is graded (measured: 4.3 s to 1.4 s for the writer's start-up).
    The package is entered without its ``__init__`` (its modules load as
    usual) and the parser's module is marked absent, as jsonschema expects
    where it is not installed."""
    import importlib.util
    import types

    from grader.handin.notebook_source import without_iri_parser

    if "nbgrader" in sys.modules:
        return
    without_iri_parser()
    try:
        spec = importlib.util.find_spec("nbgrader")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    package = types.ModuleType("nbgrader")
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    package.__file__ = spec.origin
    sys.modules["nbgrader"] = package


def _process_main(conn, path: str, assignment: str, existing: bool, due, inherited) -> None:
    for c in inherited:
        c.close()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _light_import()
    serve(conn, path, assignment, existing, due)


class GradebookLink:
    """The batch's end of the gradebook process (``serve``); does nothing
    when nbgrader is not installed."""

    def __init__(self, path: str, assignment: str, inherited, existing: bool = False, due=None):
        self.conn = self.proc = None
        self.error = None
        if not available():
            self.error = "nbgrader 未安装 / nbgrader is not installed (tox -e teacher installs it)"
            return
        self.conn, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=_process_main, args=(child, path, assignment, existing, due, [self.conn, *inherited]), daemon=True)
        self.proc.start()
        child.close()

    def send(self, student_id: str, points, timestamp=None, late=None) -> None:
        """``late``: (penalty in points, the time handed in), with a late policy."""
        if self.conn is None:
            return
        try:
            self.conn.send(("student", student_id, points, timestamp, late))
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
            proc = self.proc
            assert proc is not None  # it was started with the connection
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
