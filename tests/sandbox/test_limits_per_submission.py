"""Memory and processes are counted per submission, and graders side by side
keep apart (grader/child/cgroup.py, grader/child/child_user.py).

The attacks that hold 3 GiB under a 2 GiB limit, or start 150 processes,
are in tests/attacks/ (memory_in_forks, memory_in_memfd,
processes_beyond_limit, processes_by_exec). Here: each worker of a batch
gets its own control group and, without namespaces, its own user, so N
workers use at most N times the limit and none can signal another's
children; a group holds the limits it was made with and goes with its
grader."""

import os
import re

import pytest
from conftest import ROOT, make_submission, python_m_grader

from grader.child import cgroup, child_user
from grader.child.limits import Limits

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="control groups and users of the children's own are made by a root grader")

REPORT = """
import os
with open("/proc/self/cgroup") as _f:
    _groups = sorted(line.split(":", 2)[2].strip() for line in _f if "memory" in line.split(":")[1] or line.startswith("0::"))
raise RuntimeError(f"uid={os.getuid()} groups={_groups}")
"""


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


@needs_root
@pytest.mark.parametrize("sandbox", ["off", "require"])
def test_a_group_holds_its_limits_and_goes_with_its_grader(sandbox):
    """The zygote (in the sandbox: bubblewrap, which started it) is in the
    group, which holds the grader's limits and is removed with it."""
    from grader.engine import sandbox as sandbox_mod
    from grader.engine.grading import Grader

    if sandbox == "require" and not sandbox_mod.available():
        pytest.skip("no sandbox can be made here")
    limits = Limits(memory_bytes=768 << 20, processes=20)
    grader = Grader(limits=limits, sandbox=sandbox)
    group = grader.group
    if group is None:
        assert not cgroup.available()
        pytest.skip("no control group can be made here")
    try:
        if group.version == "v1":
            assert int(_read(os.path.join(group.folders["memory"], "memory.limit_in_bytes"))) == 768 << 20
            if "pids" in group.folders:
                assert int(_read(os.path.join(group.folders["pids"], "pids.max"))) == 20 + cgroup.TASKS_ALLOWANCE
        else:
            assert int(_read(os.path.join(group.folders[""], "memory.max"))) == 768 << 20
        grader.zygote.ask_unconfined()  # answered once the zygote has joined and started
        zygote_groups = _read(f"/proc/{grader.zygote.pid}/cgroup")
        assert os.path.basename(next(iter(group.folders.values()))) in zygote_groups
    finally:
        grader.close()
    assert not any(os.path.exists(f) for f in group.folders.values())


@needs_root
def test_each_worker_of_a_batch_has_its_own_group_and_user(tmp_path):
    """Seen from the children (outside the sandbox: inside it, a cgroup
    namespace shows each its own group as "/")."""
    sandbox = "off"
    if not cgroup.available():
        pytest.skip("no control group can be made here")
    klass = tmp_path / "class"
    for student in ("ada", "bob", "cy"):
        make_submission(klass / student, {"ex0_weighted_sum": REPORT})
    out = tmp_path / "out"
    proc = python_m_grader(
        ["batch", klass, "--out", out, "--jobs", "3", "--sandbox", sandbox, "--no-report"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT, "TMPDIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = {}
    for student in ("ada", "bob", "cy"):
        feedback = _read(str(out / student / "feedback.md"))
        found = re.search(r"uid=(\d+) groups=(\[[^\]]*\])", feedback)
        assert found, feedback
        seen[student] = found.groups()
    groups = {g for _, g in seen.values()}
    assert len(groups) == 3, seen  # one group, with its own limit, per worker
    uids = {u for u, _ in seen.values()}
    assert len(uids) == 3 and "0" not in uids, seen


@needs_root
def test_graders_side_by_side_claim_different_users_of_no_account():
    """Two graders' claims never share a uid (nor take one a process has),
    and a claim given up frees its uid."""
    import pwd

    first, second = child_user.claim(), child_user.claim()
    assert first and second and first[0] != second[0]
    for uid, _ in (first, second):
        with pytest.raises(KeyError):
            pwd.getpwuid(uid)
    os.close(first[1])
    again = child_user.claim()
    assert again[0] == first[0]
    os.close(again[1])
    os.close(second[1])
