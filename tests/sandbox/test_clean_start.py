"""Every exercise starts from a clean state: nothing one exercise's code
leaves in the shared places (/tmp, /dev/shm, SysV shared memory, POSIX message
queues, a folder made read-only so that it cannot be removed) reaches the
next exercise of the same submission, or the next student graded by the same
grader. One exercise could otherwise log the inputs of hidden checks and the
next print them in a public check's output.

In the sandbox all of these are the sandbox's own and are cleared before
every exercise. Without it they are the machine's, shared with every program
of the user. Where the grader is root, its children run as a user of their
own, and the zygote removes all that user owns there before every exercise:
the test asserts the same as in the sandbox. A grader of another user runs
its children as itself, and only the tempfile module's folder (TMPDIR) is
private to the exercise: that is what the test asserts there.
"""

import os

import pytest
from conftest import SOLUTIONS, make_submission

from grader.engine import sandbox as sandbox_mod

TAG = "leftover_c1ea7"

# Appended to ex0: leave something in every shared place.
LEAVE = f'''
import ctypes as _ct, os as _os, tempfile as _tf
for _dir in ("/tmp", "/dev/shm"):
    try:
        with open(_os.path.join(_dir, "{TAG}"), "w") as _f:
            _f.write("hidden inputs were here")
    except OSError:
        pass
try:
    _os.makedirs("/tmp/{TAG}_ro/inner", exist_ok=True)
    open("/tmp/{TAG}_ro/inner/file", "w").close()
    _os.chmod("/tmp/{TAG}_ro/inner", 0o555)
    _os.chmod("/tmp/{TAG}_ro", 0o555)
except OSError:
    pass
with open(_os.path.join(_tf.gettempdir(), "{TAG}_tempfile"), "w") as _f:
    _f.write("x")
_libc = _ct.CDLL(None, use_errno=True)
_libc.shmget(0x5EC, 4096, 0o1666)  # IPC_CREAT | 0666
_libc.mq_open.restype = _ct.c_int
_libc.mq_open(b"/{TAG}", _os.O_CREAT | _os.O_RDWR, 0o600, None)
'''

# Appended to a later exercise: say what it finds.
FIND = f'''
import ctypes as _ct, os as _os, tempfile as _tf
_found = []
for _path in ("/tmp/{TAG}", "/dev/shm/{TAG}", "/tmp/{TAG}_ro", _os.path.join(_tf.gettempdir(), "{TAG}_tempfile")):
    if _os.path.exists(_path):
        _found.append(_path)
try:
    with open("/proc/sysvipc/shm") as _f:
        if any(_row.split()[0] == str(0x5EC) for _row in _f.read().splitlines()[1:]):
            _found.append("shm 0x5EC")
except OSError:
    pass
_libc = _ct.CDLL(None, use_errno=True)
_libc.mq_open.restype = _ct.c_int
if _libc.mq_open(b"/{TAG}", _os.O_RDONLY) >= 0:
    _found.append("mqueue /{TAG}")
print("FOUND:", sorted(_found))
'''

MODES = ["sandbox", "off"]


def _source(ex: str, extra: str) -> str:
    with open(os.path.join(SOLUTIONS, ex + ".py"), encoding="utf-8") as f:
        return f.read() + extra


def _found(grade, ex: str) -> list:
    text = grade.outputs.get(ex, "")
    line = [line for line in text.splitlines() if line.startswith("FOUND:")]
    assert line, f"{ex} did not report: {text!r}"
    return eval(line[-1].removeprefix("FOUND:"))  # noqa: S307 - a list of strings the test itself printed


@pytest.fixture(scope="module", params=MODES)
def mode_grader(request):
    from grader.engine.grading import Grader

    if request.param == "sandbox" and not sandbox_mod.available():
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("CI must run this in the sandbox: bubblewrap is missing")
        pytest.skip("no sandbox can be made here")
    g = Grader(sandbox="require" if request.param == "sandbox" else "off")
    yield request.param, g
    g.close()


def test_the_next_exercise_and_the_next_student_start_clean(mode_grader, tmp_path):
    mode, grader = mode_grader
    leaver = make_submission(tmp_path / "a", {"ex0_weighted_sum": _source("ex0_weighted_sum", LEAVE), "ex1_averaging": _source("ex1_averaging", FIND)})
    finder = make_submission(tmp_path / "b", {"ex0_weighted_sum": _source("ex0_weighted_sum", FIND)})
    try:
        first = grader.grade(leaver)
        second = grader.grade(finder)
    finally:
        if mode == "off":  # the machine's own places: clean up after the test
            import shutil

            for path in (f"/tmp/{TAG}", f"/dev/shm/{TAG}"):
                if os.path.exists(path):
                    os.unlink(path)
            if os.path.exists(f"/tmp/{TAG}_ro"):
                for folder in (f"/tmp/{TAG}_ro", f"/tmp/{TAG}_ro/inner"):
                    os.chmod(folder, 0o755)
                shutil.rmtree(f"/tmp/{TAG}_ro")
            import ctypes

            libc = ctypes.CDLL(None)
            libc.mq_unlink(f"/{TAG}".encode())
            ident = libc.shmget(0x5EC, 0, 0)
            if ident >= 0:
                libc.shmctl(ident, 0, None)
    for grade in (first, second):
        assert grade.score == 100, [(r.check_id, r.feedback) for r in grade.results if not r.passed]
    if mode == "sandbox" or grader.child_user is not None:
        assert _found(first, "ex1_averaging") == []
        assert _found(second, "ex0_weighted_sum") == []
    else:
        # Without the sandbox: only the tempfile module's folder is the exercise's own.
        assert not any("_tempfile" in path for path in _found(first, "ex1_averaging"))
        assert not any("_tempfile" in path for path in _found(second, "ex0_weighted_sum"))
