"""Attack: read the grader's own solution and hidden checks by their path,
found from the grader package (as any child can: it is imported), and run
the solution. 0 points.

Where children run as the grader's user (without the sandbox, a grader that
is not root) it reads them and earns full marks (SANDBOX_ONLY); where they
run as a user of their own (a root grader without namespaces) the kernel
refuses (PermissionError: the project is root's alone); in the sandbox they
are not there (FileNotFoundError).
"""
import os
import sys

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
with open(os.path.join(PROJECT, "checks", "hidden", "test_ex0_weighted_sum.py"), encoding="utf-8") as f:
    HIDDEN = f.read()
with open(os.path.join(PROJECT, "solutions", "ex0_weighted_sum.py"), encoding="utf-8") as f:
    exec(compile(f.read(), "stolen", "exec"))
