"""A program run by ``warm_start.WarmStarter`` sees what it would see as
``python -m`` in a new interpreter: the attack catalogue's results rest on it."""

import json
import os
import subprocess
import sys
import time

import pytest
from environments import environment
from warm_start import WarmStarter

from grader.child.limits import children_of

# Prints what a program can tell about how it was started.
PROBE = """
import json, os, sys
print(json.dumps({
    "argv": sys.argv,
    "path": sys.path,
    "cwd": os.getcwd(),
    "env": {k: os.environ.get(k) for k in ("PYTHONPATH", "PROBE_WORD", "PYTHONDONTWRITEBYTECODE")},
    "dont_write_bytecode": sys.dont_write_bytecode,
    "session_leader": os.getsid(0) == os.getpid(),
    "main": __name__,
    "stdin": sys.stdin.read(),
    "cmdline": open("/proc/self/cmdline", "rb").read().decode().split("\\0")[1:-1],
}))
print("line one\\r\\nline two", file=sys.stderr)
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def starter():
    s = WarmStarter()
    yield s
    s.close()


@pytest.fixture
def probe_dir(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "probe.py").write_text(PROBE)
    (tmp_path / "work").mkdir()
    return tmp_path


def _env(probe_dir) -> dict:
    return environment(probe_dir / "lib", PROBE_WORD="naïve", PYTHONDONTWRITEBYTECODE="1")


def test_a_warm_program_sees_what_a_new_interpreter_gives_it(starter, probe_dir):
    env, cwd = _env(probe_dir), probe_dir / "work"
    cold = subprocess.run([sys.executable, "-m", "probe", "3", "x y"], cwd=cwd, env=env, capture_output=True, text=True, start_new_session=True, stdin=subprocess.DEVNULL)
    warm = starter.run(["3", "x y"], module="probe", cwd=cwd, env=env, timeout=60)
    assert warm.returncode == cold.returncode == 3
    warm_seen, cold_seen = json.loads(warm.stdout), json.loads(cold.stdout)
    assert warm_seen.pop("cmdline") != cold_seen.pop("cmdline")  # the server's: what new_interpreter is for
    assert warm_seen == cold_seen
    assert json.loads(warm.stdout)["session_leader"] and json.loads(warm.stdout)["env"]["PROBE_WORD"] == "naïve"
    assert warm.stderr == cold.stderr == "line one\nline two\n"


def test_several_at_once_each_get_their_own_streams(starter, probe_dir):
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(lambda n: starter.run([str(n)], module="probe", cwd=probe_dir / "work", env=_env(probe_dir), timeout=60), range(4)))
    assert [r.returncode for r in runs] == [0, 1, 2, 3]
    assert [json.loads(r.stdout)["argv"][1] for r in runs] == ["0", "1", "2", "3"]


def test_a_variable_read_at_start_up_is_refused(starter, probe_dir):
    with pytest.raises(ValueError, match="PYTHONIOENCODING"):
        starter.run(["0"], module="probe", cwd=probe_dir, env={**_env(probe_dir), "PYTHONIOENCODING": "latin-1"}, timeout=60)


def test_the_time_limit_ends_the_whole_session(starter, tmp_path):
    (tmp_path / "sleeper.py").write_text("import os, time\nos.fork()\ntime.sleep(60)\n")
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        starter.run([], module="sleeper", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=1)
    assert time.monotonic() - start < 10


def test_a_new_interpreter_shows_its_command_line(starter, probe_dir):
    env, cwd = _env(probe_dir), probe_dir / "work"
    cold = subprocess.run([sys.executable, "-m", "probe", "0"], cwd=cwd, env=env, capture_output=True, text=True, start_new_session=True, stdin=subprocess.DEVNULL)
    new = starter.run(["0"], module="probe", cwd=cwd, env=env, timeout=60, new_interpreter=True)
    assert json.loads(new.stdout) == json.loads(cold.stdout)
    assert json.loads(new.stdout)["cmdline"] == ["-m", "probe", "0"]


def test_what_a_program_leaves_behind_is_the_servers(starter, tmp_path):
    (tmp_path / "leaver.py").write_text("import os, time\nif os.fork() == 0:\n    os.setsid()\n    os.closerange(0, 3)  # lets go of the streams, as a daemon does\n    time.sleep(60)\n")
    starter.run([], module="leaver", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60)
    orphans = children_of(starter.pid)
    assert len(orphans) == 1
    os.kill(orphans[0], 9)
    deadline = time.monotonic() + 10
    while children_of(starter.pid) and time.monotonic() < deadline:  # reaped by the server, no zombie left
        time.sleep(0.05)
    assert not children_of(starter.pid)
