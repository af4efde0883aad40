"""Benchmark: batch throughput with the sandbox on against the same batch with
it off (issue 4: on stays within 1.3x of off).

Grades one generated class (as bench/batch_100.py builds it) twice in this
run, ``--sandbox off`` then ``--sandbox require``, and prints both wall times
and their ratio.

    python bench/sandbox_batch.py [--students 100] [--jobs N]
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from batch_100 import ROOT, make_class, timed  # noqa: E402 - after the sys.path line above


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--jobs", type=int, default=None)
    args = p.parse_args()
    base = tempfile.mkdtemp(prefix="sandbox-bench-")
    try:
        subs = os.path.join(base, "submissions")
        os.makedirs(subs)
        counts = make_class(subs, args.students)
        env = {**os.environ, "PYTHONPATH": ROOT}
        walls = {}
        for mode in ("off", "require"):
            out = os.path.join(base, f"out-{mode}")
            cmd = [sys.executable, "-m", "grader", "batch", subs, "--out", out, "--sandbox", mode]
            cmd += ["--jobs", str(args.jobs)] if args.jobs else []
            wall, proc, _ = timed(cmd, env)
            if proc.returncode != 0:
                sys.exit(f"the batch with --sandbox {mode} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
            walls[mode] = wall
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"class:              {args.students} students ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))})")
        print(f"sandbox off:        {walls['off']:.1f} s")
        print(f"sandbox on:         {walls['require']:.1f} s")
        print(f"ratio on / off:     {walls['require'] / walls['off']:.2f}x (target <= 1.3x); load average {load:.1f} at the end")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
