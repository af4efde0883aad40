"""``python -m grader grade --watch``: grade, then grade an exercise again
each time its file is saved, until Ctrl-C.

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
    from grader.student.grade_command import grade_folder

    try:
        grader = Grader(sandbox=request.sandbox, inputs_seed=request.inputs_seed)
    except SandboxUnavailable as exc:
        print(f"python -m grader: 错误 / error: {exc}", file=sys.stderr)
        return 2
    exercises = request.exercises()
    folder = os.path.abspath(request.path)
    try:
        seen = stamps(folder, exercises)
        _show(grade_folder(grader, request), out)
        while True:
            print("等待保存… / watching for saves (Ctrl-C ends)", file=out, flush=True)
            moved, seen = changed(folder, exercises, seen)
            for ex in moved:
                _show(grade_folder(grader, dataclasses.replace(request, only=ex)), out)
    except KeyboardInterrupt:
        print("\n不再监视 / stopped watching", file=out, flush=True)
        return 0
    finally:
        grader.close()


def _show(graded, out) -> None:
    sys.stderr.write(graded.notes)
    out.write(graded.report)
    out.flush()
