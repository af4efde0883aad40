"""The session's background work (the attack catalogue, the fixtures made
early) gets a smaller share of the processors than the tests
(tests/support/background_share.py): a thread that asks for it is moved,
and what it starts from then on goes with it; the rest of the session
stays where it was; where no group can be made, nothing changes."""

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
    assert int(Path(folder, "cpu.shares").read_text()) == background_share.SHARES < 1024


def test_a_server_a_background_thread_starts_for_the_tests_gets_their_share_back():
    if background_share.group_folder() is None:
        pytest.skip("no cgroup v1 cpu hierarchy to write to here: the background keeps the tests' share")
    seen = {}

    def background() -> None:
        background_share.lower_this_thread()
        server = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline(); print(open('/proc/self/cgroup').read())"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        background_share.to_the_tests(server.pid)
        seen["server"] = server.communicate("go\n")[0]

    worker = threading.Thread(target=background)
    worker.start()
    worker.join()
    assert _cpu_group(seen["server"]) == _cpu_group(Path("/proc/self/cgroup").read_text())


def test_where_no_group_can_be_made_nothing_moves():
    with mock.patch.object(background_share, "_cpu_hierarchy", return_value=None):
        assert background_share.group_folder() is None
        assert background_share.lower_this_thread() is False
    with mock.patch.object(background_share, "_cpu_hierarchy", return_value="/proc/no-such-hierarchy"):
        assert background_share.lower_this_thread() is False
