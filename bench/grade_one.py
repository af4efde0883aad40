"""Benchmark: grading one complete submission, as a whole process, against a
bare ``python -c "import torch"`` in the same environment.

Targets (issues 9 and 10): at most 1.3x with the sandbox off, 1.5x with
"auto" (the sandbox, where there are solutions to protect). Both commands run
alternately, several times,
in this process tree; the ratio of the medians is printed.

    python bench/grade_one.py [--runs 5]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = {"sandbox off": 1.3, "sandbox auto": 1.5}


def timed(cmd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    bare = [sys.executable, "-c", "import torch"]
    modes = {
        "sandbox off": [sys.executable, "-m", "grader", "grade", "solutions", "--sandbox", "off"],
        "sandbox auto": [sys.executable, "-m", "grader", "grade", "solutions", "--sandbox", "auto"],
    }
    for cmd in [bare, *modes.values()]:
        timed(cmd)  # warm the file cache and the bytecode caches
    times = {"bare": [], **{m: [] for m in modes}}
    for _ in range(args.runs):  # interleaved, so that load on the machine hits all alike
        times["bare"].append(timed(bare))
        for mode, cmd in modes.items():
            times[mode].append(timed(cmd))
    b = statistics.median(times["bare"])
    print(f"import torch:                   median {b:.2f} s over {args.runs} runs")
    for mode in modes:
        g = statistics.median(times[mode])
        print(f"grade one submission ({mode}): median {g:.2f} s, ratio {g / b:.2f}x (target <= {TARGETS[mode]}x; nbgrader about 3.8x)")


if __name__ == "__main__":
    main()
