"""Benchmark: grading one complete submission, as a whole process, against a
bare ``python -c "import torch"`` in the same environment.

Target (issue 2): at most 1.5x. Both commands run alternately, several times,
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


def timed(cmd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    bare = [sys.executable, "-c", "import torch"]
    grade = [sys.executable, "-m", "grader", "grade", "solutions"]
    timed(bare), timed(grade)  # warm the file cache and pytest's bytecode cache
    bare_t, grade_t = [], []
    for _ in range(args.runs):
        bare_t.append(timed(bare))
        grade_t.append(timed(grade))
    b, g = statistics.median(bare_t), statistics.median(grade_t)
    print(f"import torch:            median {b:.2f} s over {args.runs} runs")
    print(f"grade one submission:    median {g:.2f} s over {args.runs} runs")
    print(f"ratio grade / import:    {g / b:.2f}x (target <= 1.5x; nbgrader about 3.8x)")


if __name__ == "__main__":
    main()
