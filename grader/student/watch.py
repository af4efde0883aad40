"""``python -m grader grade --watch``: grade, then grade an exercise again
each time its file is saved, until Ctrl-C. After each save the report of
that exercise ends with the whole folder's total and next step, as
``grade``'s does (the other exercises as they were last graded).

One grader serves every grading (its zygote keeps torch imported), so a
save is answered in a fraction of a second; each grading is otherwise the
``grade`` command's own (``grade_command``): fresh children, the same
report. The folder is looked at a few times a second (a stat of each
exercise's two possible files: no watcher library, and no thread), and a
file is graded once it has stopped changing for one look, so an editor's
save in several writes is graded once.
"""

import dataclasses
import os
import sys
import time

from grader.exercises import BY_ID

LOOK_SECONDS = 0.05


def _stamp(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def stamps(folder: str, exercises) -> dict:
    """Exercise id -> what its files look like now (``.py`` and ``.ipynb``)."""
    return {ex: (_stamp(os.path.join(folder, ex + ".py")), _stamp(os.path.join(folder, BY_ID[ex].notebook))) for ex in exercises}


def changed(folder: str, exercises, seen: dict, look: float = LOOK_SECONDS):
    """Wait until some exercise's files change and then hold still for one
    look; returns (the exercises that changed, the stamps now)."""
    while True:
        time.sleep(look)
        now = stamps(folder, exercises)
        moved = [ex for ex in exercises if now[ex] != seen[ex]]
        if not moved:
            continue
        while True:  # an editor may still be writing
            time.sleep(look)
            later = stamps(folder, exercises)
            if later == now:
                return moved, now
            now = later
            moved = [ex for ex in exercises if now[ex] != seen[ex]]


def main(request, out=sys.stdout) -> int:
    """Grade ``request`` (a ``GradeRequest``), then each exercise again as its file is saved."""
    from grader.engine.grading import Grader
    from grader.engine.sandbox import SandboxUnavailable
    from grader.student.grade_command import ctrl_c_once

    try:
        grader = Grader(sandbox=request.sandbox, inputs_seed=request.inputs_seed)
    except SandboxUnavailable as exc:
        print(f"python -m grader: 错误 / error: {exc}", file=sys.stderr)
        return 2
    exercises = request.exercises()
    folder = os.path.abspath(request.path)
    with ctrl_c_once():
        return _watch(grader, request, exercises, folder, out)


def _watch(grader, request, exercises, folder: str, out) -> int:
    from grader.student.grade_command import grade_only, said

    try:
        seen = stamps(folder, exercises)
        whole = grade_only(grader, request)
        _show(said(grader, request, whole), out)
        while True:
            print("等待保存… / watching for saves (Ctrl-C ends)", file=out, flush=True)
            moved, seen = changed(folder, exercises, seen)
            for ex in moved:
                one = dataclasses.replace(request, only=ex)
                part = grade_only(grader, one)
                _show(said(grader, one, part), out)
                whole = with_regraded(whole, part, ex)
            if len(exercises) > 1:
                _show_whole(whole, out)
    except KeyboardInterrupt:
        print("\n不再监视 / stopped watching", file=out, flush=True)
        return 0
    finally:
        grader.close()


def with_regraded(whole, part, exercise: str):
    """``whole`` (a ``Grade`` of every exercise) with ``exercise``'s results
    and notes taken from ``part``, a grading of it alone."""
    from grader.exercises import IDS

    results = [r for r in whole.results if r.exercise != exercise] + [r for r in part.results if r.exercise == exercise]
    results.sort(key=lambda r: IDS.index(r.exercise))  # stable: each exercise's checks keep their order
    teacher_points = {**whole.teacher_points, **{k: v for k, v in part.teacher_points.items() if k == exercise}}
    notes = {k: v for k, v in whole.notes.items() if k != exercise} | {k: v for k, v in part.notes.items() if k == exercise}
    return dataclasses.replace(whole, results=results, teacher_points=teacher_points, notes=notes, errors=part.errors)


def _show_whole(whole, out) -> None:
    from grader.student import report

    print("\n全部练习 / all exercises:", file=out)
    out.write("\n".join(report.closing(whole)) + "\n")
    out.flush()


def _show(graded, out) -> None:
    sys.stderr.write(graded.notes)
    out.write(graded.report)
    out.flush()
