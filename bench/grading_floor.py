"""Benchmark: what one student's grading costs in processor time, and how
much of it the isolation costs, against a bare ``python -c "import torch"``.

Two ways of answering the same checks on copies of the solutions, in one
long-lived grader each (the steady state of a batch worker, after a few
submissions to warm up):

- ``isolated``: as every grading runs, each exercise's code in a confined
  child forked from the zygote (the sandbox off, so that the zygote and its
  children are this tree's own processes and their time can be read);
- ``in-process``: the same pytest session, checks and reference, but each
  exercise's code loaded into the grading process itself, as Otter or
  nbgrader run it. Never a way to grade: it is here only as the floor that
  no isolation can go below.

It prints each per student, split into the grading process and the zygote
with its children, and what the floor means for issue 31's batch target
(100 students on this machine's cores within 6x the import): the batch's
lower bound on an idle machine with isolation costing nothing.

    python bench/grading_floor.py [--students 30] [--warm 3]

``--baseline TREE`` (a checkout of another commit, ``git worktree add``)
instead measures the isolated figure of that tree and of this one,
alternating, ``--rounds`` times on the same copies, and prints each pair
and the median ratio: the machine's load changes between runs, and a pair
run back to back sees about the same.

    python bench/grading_floor.py --baseline ../base --rounds 5 --students 20
"""

import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TARGET = 6.0  # issue 31: a batch of 100 x 8 within 6x the import of torch


def _zygote_tree_cpu(pid: int) -> float:
    """The zygote's own time and that of the children it has reaped."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def measure(mode: str, folder: str, warm: int) -> dict:
    """Runs in a process of its own: per-student seconds of the grading
    process and of the zygote's tree, in the steady state."""
    from grader.engine import grading
    from grader.engine.grading import Grader, Job

    grader = Grader(many=True, sandbox="off")
    if mode == "in-process":
        from grader.engine.reference_endpoint import ReferenceEndpoint

        class _InProcess(ReferenceEndpoint):
            """The solution answering for the submission, unmemoised, in this process."""

            def prestart(self):
                pass

            def finish(self) -> str:
                return ""

            def close(self) -> None:
                pass

        from grader.engine.submission_endpoint import SubmissionEndpoint

        SubmissionEndpoint.prestart = lambda self: None  # no child is started for the first exercise
        made = grading._Grading.__init__

        def init(self, grader, job, only, public_only):
            made(self, grader, job, only, public_only)
            for endpoint in self.endpoints.values():
                endpoint.close()
            self.endpoints = {ex: _InProcess(ex, os.path.join(job.path, ex + ".py")) for ex in self.order}

        grading._Grading.__init__ = init
    subs = sorted(glob.glob(os.path.join(folder, "*")))
    scores: list = []
    grader.grade_each([Job(p) for p in subs[:warm]], lambda job, grade: scores.append(grade.score))
    zygote, own = _zygote_tree_cpu(grader.zygote.pid), time.process_time()
    start = time.perf_counter()
    grader.grade_each([Job(p) for p in subs[warm:]], lambda job, grade: scores.append(grade.score))
    n = len(subs) - warm
    result = {
        "grader": (time.process_time() - own) / n,
        "zygote": (_zygote_tree_cpu(grader.zygote.pid) - zygote) / n,
        "wall": (time.perf_counter() - start) / n,
        "scores": sorted(set(scores)),
    }
    grader.close()
    return result


def _run(args: list, root: str = ROOT) -> tuple[dict | None, float]:
    """A child of this script (run in the tree ``root``), and the processor time of its whole tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": root})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    lines = proc.stdout.strip().splitlines()
    return (json.loads(lines[-1]) if lines else None), cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=30, help="copies of the solutions to grade after the warm-up")
    p.add_argument("--warm", type=int, default=3, help="submissions graded first and not counted")
    p.add_argument("--baseline", help="another checkout: measure it and this tree in turns, and print the ratio")
    p.add_argument("--rounds", type=int, default=5, help="pairs measured with --baseline")
    p.add_argument("--measure", choices=["isolated", "in-process"], help=argparse.SUPPRESS)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.folder, args.warm)))
        return

    from grader.exercises import IDS

    base = tempfile.mkdtemp(prefix="grading-floor-")
    try:
        for i in range(args.students + args.warm):
            student = os.path.join(base, f"student{i:03d}")
            os.makedirs(student)
            for ex in IDS:
                shutil.copy(os.path.join(ROOT, "solutions", ex + ".py"), student)
        if args.baseline:
            _paired(os.path.abspath(args.baseline), base, args)
            return
        imports = [_run(["-c", "import torch"])[1] for _ in range(3)]
        got = {mode: _run([__file__, "--measure", mode, "--folder", base, "--warm", str(args.warm)])[0] for mode in ("isolated", "in-process")}
        imports += [_run(["-c", "import torch"])[1] for _ in range(3)]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    imp = sorted(imports)[len(imports) // 2]
    cores = len(os.sched_getaffinity(0))
    print(f"import torch:       {imp:.2f} s of processor time (median of {len(imports)})")
    for mode, r in got.items():
        total = r["grader"] + r["zygote"]
        print(
            f"{mode + ':':<19} {total * 1000:6.0f} ms a student (grading process {r['grader'] * 1000:.0f} ms, "
            f"zygote and children {r['zygote'] * 1000:.0f} ms; wall {r['wall'] * 1000:.0f} ms); scores {r['scores']}"
        )
    iso, floor = (got[m]["grader"] + got[m]["zygote"] for m in ("isolated", "in-process"))
    print(f"isolation's share:  {1 - floor / iso:.0%} of a student's processor time")
    # A batch worker starts by importing torch twice (its grader, its zygote):
    # one worker per core.
    for mode, per in (("isolated", iso), ("in-process", floor)):
        bound = (2 * imp + 100 * per / cores) / imp
        print(f"100 students, {cores} cores, {mode}: at least {bound:.1f}x the import on an idle machine (target {TARGET:g}x)")


def _paired(baseline: str, folder: str, args) -> None:
    """The isolated figure of ``baseline`` and of this tree, in turns."""
    ratios = []
    for i in range(args.rounds):
        pair = []
        for root in (baseline, ROOT):
            script = os.path.join(root, "bench", "grading_floor.py")
            r = _run([script, "--measure", "isolated", "--folder", folder, "--warm", str(args.warm)], root)[0]
            pair.append(r["grader"] + r["zygote"])
        ratios.append(pair[1] / pair[0])
        print(f"round {i + 1}: baseline {pair[0] * 1000:.0f} ms, this tree {pair[1] * 1000:.0f} ms a student: {ratios[-1]:.3f}x", flush=True)
    print(f"median ratio over {args.rounds} rounds: {sorted(ratios)[len(ratios) // 2]:.3f}x (this tree / baseline, processor time a student)")


if __name__ == "__main__":
    main()
