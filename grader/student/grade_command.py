"""What ``python -m grader grade`` does once it has a grader: grade the
folder a ``GradeRequest`` names, and say what the command says (the
terminal's report, the notes for stderr, results.json, the exit status) as
one ``Graded``.

The command line, the warm grader (``warm_server``: ``check()`` in a
notebook), ``grade --watch`` and GitHub Classroom's step all grade through
here, so they say the same thing about the same files.
"""

import contextlib
import os
import signal
import threading

from grader.student.request import Graded, GradeRequest


def grade_folder(grader, request: GradeRequest) -> Graded:
    """Grade ``request.path`` as ``request`` asks with ``grader``: what the command says."""
    return said(grader, request, grade_only(grader, request))


def grade_only(grader, request: GradeRequest):
    """The engine's ``Grade`` of ``request``; nothing said or written yet.

    Each grading gets its own secret for the checks' inputs unless one is
    asked for (``Grader.seed_for``, the one rule): a grader that lives for
    many gradings (the warm grader) gives none of them the inputs of another."""
    from grader.text import visible

    seed = grader.seed_for(request.inputs_seed)  # None: a fresh one for this grading, not the grader's own
    # The title names the folder: a student's folder name, if the shell expanded a pattern.
    return grader.grade(
        os.path.abspath(request.path),
        only=request.only,
        display_root=visible(request.display_name or request.path, name=True),
        public_only=request.public_only,
        inputs_seed=seed,
    )


def said(grader, request: GradeRequest, grade) -> Graded:
    """What the command says of ``grade``: the report, the notes, the exit
    status; results.json written where the request asks."""
    from grader.engine.grading import unconfined_note
    from grader.student import report

    notes = unconfined_note(grade.unconfined) + "\n" if grade.unconfined and not grader.quiet else ""
    results = report.results_json(grade)
    if request.json_path:
        report.write_results(request.json_path, results)
    passed = all(r.passed for r in grade.results)
    return Graded(3 if grade.errors else 0, report.terminal(grade), notes, passed, results)


def job_of(request: GradeRequest, key: object = None):
    """The engine's ``Job`` for a request graded in a session of many (a
    batch worker's students, each its own request): its folder, its name in
    the reports as given, its secret (None: the grader's own, the batch's)."""
    from grader.engine.grading import Job

    return Job(request.path, request.display_name, key=key, inputs_seed=request.inputs_seed)


@contextlib.contextmanager
def ctrl_c_once():
    """The first Ctrl-C raises KeyboardInterrupt, later ones do nothing: tox
    sends its own SIGINT right after the terminal's, which would otherwise
    break off the goodbye or the grader's close with a traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = []

    def first_only(signum, frame):
        if not seen:
            seen.append(signum)
            raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, first_only)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if before is None else before)
