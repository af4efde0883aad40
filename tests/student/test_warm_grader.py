"""The warm grader (grader/student/warm_server.py, its client grader/student/warm_grader.py):
one grading process between many gradings, and nothing one grading's code does
reaches a later one.

- ``tests/across_gradings/``: pairs of ex0 files graded one after the other in
  one warm grader. ``<kind>__first.py`` is correct and tries to leave something
  (a file in /tmp, a planted module, an environment variable, a stopped
  process, signals at the zygote and the grader); ``<kind>__next.py`` is the
  stub that earns 10 only with what the first left. The first must earn 10,
  the next 0, in the sandbox and (as root, whose children run as a user of
  their own) without it. A grader that kept one child folder, one /tmp or one
  environment for its gradings fails these.
- Each grading its own secret for the checks' inputs (a grader that drew the
  inputs once would give a later submission the inputs an earlier one saw).
- The server does not take the caller's environment: a ``PYTHONPATH`` with a
  fake grader, or a sitecustomize, set in a kernel changes nothing.
- A server killed or stopped (by code it graded, say) is replaced, the
  grading is done again in the new one and says so once.
"""

import json
import os
import secrets
import signal
import subprocess
import sys

import pytest
from conftest import ROOT, SOLUTIONS, below_the_zygote, descendants, make_submission, points_by_exercise

from grader.child import child_user
from grader.engine import sandbox as sandbox_mod
from grader.student import warm_grader
from grader.student.request import GradeRequest

ACROSS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "across_gradings")
KINDS = sorted(name[: -len("__first.py")] for name in os.listdir(ACROSS) if name.endswith("__first.py"))

SANDBOX = sandbox_mod.available()
OWN_USER = child_user.wanted(False) and child_user.probe(child_user.interpreter_paths(), []).user is not None
MODES = {
    # What the server is asked for, and why a mode cannot run here.
    "sandbox": ("require", None if SANDBOX else "no sandbox here (bubblewrap); CI installs it"),
    "off": ("off", None if OWN_USER else "without the sandbox only root's children run as a user of their own"),
}


RUN = secrets.token_hex(4)  # in the names the pairs leave things under: nothing of another run is found


def _source(name: str) -> str:
    with open(os.path.join(ACROSS, name), encoding="utf-8") as f:
        return f.read().replace("__RUN__", RUN)


@pytest.fixture(scope="module", params=sorted(MODES))
def warm(request):
    mode, why_not = MODES[request.param]
    if why_not:
        if os.environ.get("ATTENTION_CI"):
            pytest.fail(why_not)
        pytest.skip(why_not)
    w = warm_grader.WarmGrader(sandbox=mode)
    yield w
    w.close()


def _grade(w, folder, **extra) -> tuple[dict, str, str]:
    out = str(folder) + "-results.json"
    graded = w.grade(GradeRequest(str(folder), only="ex0_weighted_sum", json_path=out, **extra))
    code, text, said = graded.code, graded.report, graded.notes
    assert code == 0, text + said
    with open(out, encoding="utf-8") as f:
        assert graded.results == json.load(f)  # the reply carries results.json too
    with open(out, encoding="utf-8") as f:
        return json.load(f), text, said


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_reaches_the_next_grading(warm, kind, tmp_path):
    first = make_submission(tmp_path / "first", {"ex0_weighted_sum": _source(kind + "__first.py")})
    after = make_submission(tmp_path / "next", {"ex0_weighted_sum": _source(kind + "__next.py")})
    results, text, _ = _grade(warm, first)
    assert points_by_exercise(results)["ex0_weighted_sum"] == 10, text
    # Twice: what the first left may take a moment to act, or act once.
    for _ in range(2):
        results, text, said = _grade(warm, after)
        assert points_by_exercise(results)["ex0_weighted_sum"] == 0, f"{kind}: the next grading used what the first left\n{text}"
        assert "尚未完成" in text, text  # graded as the stub it is, not failed for a broken grader
    # Nothing of either is left running under the server's zygote.
    left = below_the_zygote(warm.pid)
    assert not left, f"{kind}: processes left under the warm grader's zygote: {left}"


def test_each_grading_draws_its_own_inputs(warm, tmp_path):
    """A teacher's grading draws the checks' inputs with a fresh secret: in
    a warm grader, each grading its own."""
    seeds = set()
    for n in range(3):
        results, _, _ = _grade(warm, make_submission(tmp_path / f"s{n}"))
        seeds.add(results["extra_data"]["inputs_seed"])
    assert len(seeds) == 3, seeds


def test_a_hurt_server_is_replaced_and_says_so_once(tmp_path):
    """Killed or stopped between or during gradings (the grading's own code
    can, where it runs as the grader's user): the next grading is right,
    says once that a new grader took over, and the one after says nothing."""
    w = warm_grader.WarmGrader(sandbox="require" if SANDBOX else "off")
    try:
        stub = make_submission(tmp_path / "stub", {"ex0_weighted_sum": _source("tmp_file__next.py")})
        right = make_submission(tmp_path / "right")
        for hurt in (signal.SIGKILL, signal.SIGSTOP):
            results, _, _ = _grade(w, right)
            old = w.pid
            os.kill(old, hurt)
            results, text, said = _grade(w, stub)
            assert w.pid != old
            assert points_by_exercise(results)["ex0_weighted_sum"] == 0, text
            assert said.count(warm_grader.REPLACED) == 1, said
            results, text, said = _grade(w, right)
            assert points_by_exercise(results)["ex0_weighted_sum"] == 10, text
            assert warm_grader.REPLACED not in said
        assert w.starts == 3
    finally:
        w.close()


def test_the_server_ends_with_its_client_and_when_idle():
    w = warm_grader.WarmGrader(sandbox="off", idle_seconds=1)
    w.start()
    proc = w.proc
    assert proc.wait(timeout=60) == 0  # idle for a second: gone, with its zygote
    w.proc = None
    w.start()
    proc = w.proc
    w.sock.close()  # as when the kernel ends: its end of the socket closes
    assert proc.wait(timeout=60) == 0
    w.proc = None


def test_the_caller_s_environment_does_not_reach_the_grader(tmp_path, monkeypatch):
    """A kernel cell that puts a fake grader, or a sitecustomize that fakes
    results, on PYTHONPATH: the warm grader takes the project's path, and
    the untouched stub earns 0 (``check()`` showed 10/10 when it passed the
    kernel's PYTHONPATH on)."""
    evil = tmp_path / "evil"
    (evil / "grader").mkdir(parents=True)
    fake = "import json, sys\nout = sys.argv[sys.argv.index('--json') + 1] if '--json' in sys.argv else None\nif out:\n    json.dump({'score': 100, 'tests': []}, open(out, 'w'))\nprint('faked')\n"
    (evil / "grader" / "__init__.py").write_text("")
    (evil / "grader" / "__main__.py").write_text(fake)
    (evil / "sitecustomize.py").write_text("import builtins\nbuiltins.ATTENTION_FAKED = True\nprint('faked')\n")
    for key, value in {"PYTHONPATH": str(evil), "PYTHONSTARTUP": str(evil / "sitecustomize.py"), "ATTENTION_TIME_SCALE": "0.01"}.items():
        monkeypatch.setenv(key, value)
    env = warm_grader.project_env()
    assert env["PYTHONPATH"] == ROOT and "PYTHONSTARTUP" not in env and "ATTENTION_TIME_SCALE" not in env
    w = warm_grader.WarmGrader(sandbox="off")
    try:
        stub = make_submission(tmp_path / "stub", {"ex0_weighted_sum": _source("tmp_file__next.py")})
        results, text, said = _grade(w, stub)
    finally:
        w.close()
    assert points_by_exercise(results)["ex0_weighted_sum"] == 0, text
    assert "faked" not in text + said


def test_check_answers_as_the_command_line_does(tmp_path):
    """The report and results.json of a warm grading are the command line's."""
    folder = make_submission(tmp_path / "partial", {"ex0_weighted_sum": _source("tmp_file__next.py")})
    w = warm_grader.WarmGrader()
    try:
        graded = w.grade(GradeRequest(str(folder), only="ex0_weighted_sum", inputs_seed=0))
        code, text = graded.code, graded.report
    finally:
        w.close()
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(folder), "--only", "ex0_weighted_sum", "--inputs-seed", "0"],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300,
    )  # fmt: skip
    assert (code, text) == (proc.returncode, proc.stdout)


def test_a_bad_request_is_answered_and_the_server_goes_on(tmp_path):
    w = warm_grader.WarmGrader(sandbox="off")
    try:
        graded = w.grade(GradeRequest(str(tmp_path / "missing")))
        assert graded.code == 2 and "no such folder" in graded.notes and graded.results == {}
        graded = w.grade(GradeRequest(str(SOLUTIONS), only="ex9"))
        assert graded.code == 2 and "no exercise" in graded.notes
        # What the protocol refuses, sent as a client with its own idea of a request would send it.
        for line, said in [
            (b'{"request": {"path": "x", "bogus": 1}}', "unknown fields in the request: bogus"),
            (b'{"request": {"path": "x", "inputs_seed": "7"}}', "--inputs-seed must be a whole number"),
            (b'{"argv": ["x"]}', "a request must be a JSON object"),
            (b"not json", "a request must be a JSON object"),
        ]:
            w.sock.sendall(line + b"\n")
            reply = w._reply()["graded"]
            assert reply["code"] == 2 and said in reply["notes"], (line, reply)
        graded = w.grade(GradeRequest(str(SOLUTIONS), only="ex0_weighted_sum"))
        assert graded.code == 0 and "10 / 10" in graded.report and graded.results["score"] == 10
        assert w.starts == 1
    finally:
        w.close()


def test_watch_grades_an_exercise_again_on_each_save(tmp_path):
    """``grade --watch``: the report at the start, then one for each save of
    an exercise's file (that exercise only, then the folder's total and next
    step), until Ctrl-C (exit 0, quietly, even when tox sends a second one
    while the grader closes, and nothing left running)."""
    folder = make_submission(tmp_path / "watched", {"ex0_weighted_sum": _source("tmp_file__next.py")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "grade", folder, "--watch", "--sandbox", "off"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ROOT},
    )  # fmt: skip

    def next_report() -> str:
        lines = []
        while True:
            line = proc.stdout.readline()
            assert line, "the watcher ended:\n" + "".join(lines) + proc.stderr.read()
            if "watching for saves" in line:
                return "".join(lines)
            lines.append(line)

    try:
        first = next_report()
        assert "ex7_gpt" in first and "0 / 10" in first  # everything, the stub's ex0 included
        with open(os.path.join(folder, "ex0_weighted_sum.py"), "w", encoding="utf-8") as f:
            f.write(_source("tmp_file__first.py"))
        saved = next_report()
        assert "10 / 10" in saved and "ex1_averaging" not in saved  # that exercise alone, graded anew
        # ...and then the whole folder's total and next step, as grade ends.
        assert saved.rstrip().endswith("Total 100 / 100: every check passed."), saved
        with open(os.path.join(folder, "ex0_weighted_sum.py"), "w", encoding="utf-8") as f:
            f.write(_source("tmp_file__next.py"))
        saved = next_report()
        assert "all exercises" in saved and "Total 90 / 100: 7 of 8 done, 1 not started. Next: write ex0_weighted_sum" in saved, saved
        below = descendants(proc.pid)
        assert below  # the zygote, at least
        # Ctrl-C in tox: the terminal's SIGINT, then tox's own right after it.
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert "stopped watching" in proc.stdout.read()
        assert "Traceback" not in proc.stderr.read()
        assert [p for p in below if _alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_server_that_cannot_start_says_why(tmp_path):
    """A course copy whose grader cannot even be imported: the check fails
    with the server's own traceback, not with silence."""
    broken = tmp_path / "course"
    (broken / "grader" / "student").mkdir(parents=True)
    (broken / "grader" / "__init__.py").write_text("")
    (broken / "grader" / "student" / "__init__.py").write_text("")
    (broken / "grader" / "student" / "warm_server.py").write_text("raise ImportError('the course copy is broken')\n")
    w = warm_grader.WarmGrader(sandbox="off", project=str(broken))
    try:
        graded = w.grade(GradeRequest(str(SOLUTIONS)))
        code, said = graded.code, graded.notes
    finally:
        w.close()
    assert code == 3 and "grading did not finish" in said and "the course copy is broken" in said, said


# -- What a kernel can do beyond its environment variables (issue 40, part 4) --

_USER_SITE_FILES = {
    # A cell writes one of these into a folder of its own and points HOME there:
    # Python runs both at start, from the user's site-packages, where it reads them.
    "usercustomize": ("usercustomize.py", "open({marker!r}, 'a').write('usercustomize\\n')\n"),
    "pth": ("evil.pth", "import os; open({marker!r}, 'a').write('pth\\n')\n"),
}


def _python_with_a_user_site(where) -> str:
    """An interpreter that reads the user's site-packages, as a hub's image
    or the wheel's install has (a venv without the system's packages, as
    tox makes, never reads them), with this one's packages (torch)."""
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(where)], check=True, timeout=120)
    python = os.path.join(str(where), "bin", "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(purelib, "this_env.pth"), "w", encoding="utf-8") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.mark.parametrize("shape", sorted(_USER_SITE_FILES))
def test_the_user_s_site_packages_do_not_reach_the_grader(shape, tmp_path):
    """A cell that plants a file Python runs at start in a user site-packages
    and points HOME at it: no code of it runs in the warm grader, and the
    untouched stub earns 0 (on 8722fb6 both ran in the server)."""
    python = _python_with_a_user_site(tmp_path / "env")
    marker = str(tmp_path / "ran")
    home = tmp_path / "home"
    name, text = _USER_SITE_FILES[shape]
    user_site = subprocess.run([python, "-c", "import site; print(site.getusersitepackages())"], capture_output=True, text=True, check=True, env={**os.environ, "HOME": str(home)}).stdout.strip()
    assert user_site.startswith(str(home))
    os.makedirs(user_site)
    with open(os.path.join(user_site, name), "w", encoding="utf-8") as f:
        f.write(text.format(marker=marker))
    stub = make_submission(tmp_path / "stub", {"ex0_weighted_sum": _source("tmp_file__next.py")})
    kernel = (
        "import json, os, sys\n"
        f"os.environ['HOME'] = {str(home)!r}  # the cell's doing\n"
        "from grader.student import warm_grader\n"
        "from grader.student.request import GradeRequest\n"
        "w = warm_grader.WarmGrader(sandbox='off')\n"
        f"g = w.grade(GradeRequest({stub!r}, only='ex0_weighted_sum'))\n"
        "w.close()\n"
        "print(json.dumps(g.results))\n"
    )
    proc = subprocess.run([python, "-c", kernel], capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr
    assert not os.path.exists(marker), f"{name} ran in the grader"
    assert points_by_exercise(json.loads(proc.stdout.splitlines()[-1]))["ex0_weighted_sum"] == 0


def test_the_grader_s_home_is_the_account_s(monkeypatch, tmp_path):
    import pwd

    monkeypatch.setenv("HOME", str(tmp_path))
    env = warm_grader.project_env()
    assert env["HOME"] == pwd.getpwuid(os.getuid()).pw_dir != str(tmp_path)
    assert env["PYTHONNOUSERSITE"] == "1"  # the grader and torch are not in a user site here


@pytest.mark.parametrize("split", ["same exercise", "two exercises"])
def test_threads_asking_at_once_get_their_own_answers(split, tmp_path):
    """Two threads of one kernel call check() at the same moment, a few times
    over: each gets the report of what it asked (on 8722fb6 they took each
    other's, or one waited for an answer the other had read)."""
    import threading

    stub = make_submission(tmp_path / "stub", {"ex0_weighted_sum": _source("tmp_file__next.py")})
    asks = {
        "same exercise": [(SOLUTIONS, "ex0_weighted_sum", 10), (stub, "ex0_weighted_sum", 0)],
        "two exercises": [(SOLUTIONS, "ex1_averaging", None), (stub, "ex0_weighted_sum", 0)],
    }[split]
    w = warm_grader.WarmGrader(sandbox="off")
    try:
        w.start()
        for _ in range(3):
            got: dict = {}
            start = threading.Barrier(len(asks))

            def ask(i, folder, exercise):
                start.wait()
                got[i] = w.grade(GradeRequest(str(folder), only=exercise))

            threads = [threading.Thread(target=ask, args=(i, f, ex), daemon=True) for i, (f, ex, _) in enumerate(asks)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=120)
            assert sorted(got) == list(range(len(asks))), "a thread is still waiting for its answer"
            for i, (folder, exercise, points) in enumerate(asks):
                results = got[i].results
                assert {t["tags"][0] for t in results["tests"]} == {exercise}, (i, got[i].report)
                if points is not None:
                    assert points_by_exercise(results)[exercise] == points, got[i].report
    finally:
        w.close()


_SLOW = "import time\n\n\ndef weighted_sum(weights, values):\n    time.sleep(600)\n"


@pytest.mark.parametrize("mode, ends_by", [("sandbox", signal.SIGKILL), ("off", signal.SIGTERM)])
def test_a_kernel_that_ends_mid_grading_ends_the_grading(mode, ends_by, tmp_path):
    """The kernel is killed or shut down while its check() runs a slow answer:
    the server, bubblewrap, the zygote and the child end within seconds (on
    8722fb6 they ran on for the grading's time, about a minute)."""
    sandbox, why_not = MODES[mode]
    if why_not and mode == "sandbox":
        if os.environ.get("ATTENTION_CI"):
            pytest.fail(why_not)
        pytest.skip(why_not)
    import time

    slow = make_submission(tmp_path / "slow", {"ex0_weighted_sum": _SLOW})
    kernel = (
        "import sys\n"
        "from grader.student import warm_grader\n"
        "from grader.student.request import GradeRequest\n"
        f"w = warm_grader.WarmGrader(sandbox={sandbox!r})\n"
        "w.start()\n"
        "print(w.pid, flush=True)\n"
        f"w.grade(GradeRequest({slow!r}, only='ex0_weighted_sum'))\n"
    )
    client = subprocess.Popen([sys.executable, "-c", kernel], stdout=subprocess.PIPE, text=True, cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": ROOT})
    try:
        server = int(client.stdout.readline())
        deadline = time.monotonic() + 120
        while not below_the_zygote(server):  # the answer's child is asleep in weighted_sum
            assert time.monotonic() < deadline and client.poll() is None, "the grading never began"
            time.sleep(0.1)
        everyone = [server, *descendants(server)]
        client.send_signal(ends_by)
        client.wait(timeout=30)
        deadline = time.monotonic() + 8
        while (left := [p for p in everyone if _alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left == [], f"still running {len(left)} of {len(everyone)}: {[_cmdline(p) for p in left]}"
    finally:
        client.kill()
        client.wait()


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for its parent."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")[:80]
    except OSError:
        return "?"
