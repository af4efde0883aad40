"""The session's background work (the attack catalogue, the fixtures made
early) gets a smaller share of the processors than the tests
(tests/support/background_share.py): a thread that asks for it is moved,
and what it starts from then on goes with it; the rest of the session
stays where it was; where no group can be made, nothing changes."""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from unittest import mock

import background_share
import pytest


def _cpu_group(cgroup_text: str) -> str:
    return next(path for _, names, path in (line.split(":", 2) for line in cgroup_text.splitlines()) if "cpu" in names.split(","))


def test_a_lowered_thread_and_what_it_starts_are_in_the_group_and_the_rest_is_not():
    folder = background_share.group_folder()
    if folder is None:
        pytest.skip("no cgroup v1 cpu hierarchy to write to here: the background keeps the tests' share")
    seen = {}

    def background() -> None:
        seen["lowered"] = background_share.lower_this_thread()
        seen["child"] = subprocess.run([sys.executable, "-c", "print(open('/proc/self/cgroup').read())"], capture_output=True, text=True, check=True).stdout
        seen["thread"] = Path(f"/proc/self/task/{threading.get_native_id()}/cgroup").read_text()

    before = Path("/proc/self/cgroup").read_text()
    worker = threading.Thread(target=background)
    worker.start()
    worker.join()
    assert seen["lowered"]
    assert _cpu_group(seen["child"]).endswith("/" + background_share.GROUP)
    assert _cpu_group(seen["thread"]).endswith("/" + background_share.GROUP)
    assert Path("/proc/self/cgroup").read_text() == before  # the tests' own thread stays
    assert int(Path(folder, "cpu.shares").read_text()) == background_share.SHARES


def test_a_thread_knows_whether_it_does_the_backgrounds_work():
    """conftest.python_m_grader forks a background thread's programs from an interpreter of the background's."""
    if background_share.group_folder() is None:
        pytest.skip("no cgroup v1 cpu hierarchy to write to here: no thread is lowered")
    seen = []
    worker = threading.Thread(target=lambda: seen.extend([background_share.lowered(), background_share.lower_this_thread() or True, background_share.lowered()]))
    worker.start()
    worker.join()
    assert seen == [False, True, True] and not background_share.lowered()


def test_a_warm_servers_tree_gets_the_tests_share_for_a_while_then_goes_back():
    """As a heavy attack's grading has it (test_attacks.HEAVY_AT_IMPORT):
    the server and what is under it, and what it starts meanwhile."""
    if background_share.group_folder() is None:
        pytest.skip("no cgroup v1 cpu hierarchy to write to here: the background keeps the tests' share")
    tests_group = _cpu_group(Path("/proc/self/cgroup").read_text())
    # A server: on each line it reads, it starts a child that reports its group and sleeps.
    server_code = (
        "import subprocess, sys\n"
        "for line in sys.stdin:\n"
        "    subprocess.Popen([sys.executable, '-c', \"import time; print(open('/proc/self/cgroup').read(), flush=True); time.sleep(30)\"], stdout=sys.stdout)\n"
    )
    seen = {}

    def background() -> None:
        background_share.lower_this_thread()
        server = subprocess.Popen([sys.executable, "-c", server_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def tree() -> list[int]:  # as test_attacks.warm_tree: the server and its children
            return [server.pid, *(int(p) for p in Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split())]

        try:
            with background_share.at_the_tests_share(tree):
                seen["server during"] = _cpu_group(Path(f"/proc/{server.pid}/cgroup").read_text())
                server.stdin.write("go\n")
                server.stdin.flush()
                seen["child during"] = _cpu_group("".join(server.stdout.readline() for _ in range(_lines_of_cgroup())))
                seen["child pid"] = tree()[1]
            seen["server after"] = _cpu_group(Path(f"/proc/{server.pid}/cgroup").read_text())
            seen["child after"] = _cpu_group(Path(f"/proc/{seen['child pid']}/cgroup").read_text())
        finally:
            for pid in tree()[1:]:
                os.kill(pid, signal.SIGKILL)
            server.kill()
            server.wait()

    worker = threading.Thread(target=background)
    worker.start()
    worker.join()
    assert seen["server during"] == seen["child during"] == tests_group
    assert seen["server after"].endswith("/" + background_share.GROUP)
    assert seen["child after"].endswith("/" + background_share.GROUP)


def _lines_of_cgroup() -> int:
    return len(Path("/proc/self/cgroup").read_text().splitlines()) + 1  # and print's own newline


def test_where_no_group_can_be_made_nothing_moves():
    seen = []

    def background() -> None:
        with mock.patch.object(background_share, "_cpu_hierarchy", return_value=None):
            seen.extend([background_share.group_folder(), background_share.lower_this_thread()])
        with mock.patch.object(background_share, "_cpu_hierarchy", return_value="/proc/no-such-hierarchy"):
            seen.append(background_share.lower_this_thread())
        seen.append(background_share.lowered())

    worker = threading.Thread(target=background)  # not this one: were it lowered, it would stay so
    worker.start()
    worker.join()
    assert seen == [None, False, False, False]
