"""Where the test suite's processor time goes, file by file: a pytest plugin.

    python -m pytest tests -p bench.suite_cpu [-n 2 --dist loadgroup]

At the end it prints each test file's CPU seconds (its own process and the
processes it started and waited for: graders, zygotes, docs builds) and wall
seconds, largest first, and the run's total. The suite's wall time cannot go
below its CPU time divided by the cores it really gets: this says which files
to make cheaper, not only which to run side by side. Under pytest-xdist (not
installed by tox; ``-n 2``) each worker measures its own tests and the
controller adds them up.

Measured on the 2-core machine CI uses, serially: at a6e6ff9 the suite
took 1,036 s of CPU in 799 s (2,082 tests; the attack catalogue 319 s of
CPU in 198 s, each attack a grader of its own); with issue 31's warm paths
(the catalogue through warm graders, the catalogues through ``grade_each``,
``python -m grader`` forked from a warm interpreter) 703 s in 565 s (2,143
tests; the attack catalogue 105 s in 102 s). With pytest-xdist's ``-n 2
--dist loadgroup`` (a file, or the docs' group, to a process) the suite
took 695 s against 639 s serially: no faster, so ``tox -e test`` stays
serial. The programs a warm interpreter (``tests/support/warm_start.py``) runs
are counted with the test that asked for them.
"""

import collections
import os
import resource
import time

_cpu = collections.Counter()
_wall = collections.Counter()


def _now() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _warm_starters()


def _warm_starters() -> float:
    """The processor time of the programs the tests' warm interpreters have
    run and reaped so far (``tests/support/warm_start.py``): they are the servers'
    children, not this process's, until a server itself is reaped."""
    try:
        from warm_start import WarmStarter
    except ImportError:
        return 0.0
    total = 0.0
    for pid in WarmStarter.live_pids():
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime
    return total


def pytest_runtest_protocol(item, nextitem):
    item._cpu_start = (_now(), time.monotonic())


def pytest_runtest_makereport(item, call):
    if call.when == "teardown" and hasattr(item, "_cpu_start"):
        cpu, wall = item._cpu_start
        name = item.path.name
        _cpu[name] += _now() - cpu
        _wall[name] += time.monotonic() - wall
        item.user_properties.append(("suite_cpu", (name, _now() - cpu, time.monotonic() - wall)))


def pytest_runtest_logreport(report):
    # On the xdist controller the workers' measurements arrive with the reports.
    if report.when == "teardown" and _is_controller:
        for key, value in report.user_properties:
            if key == "suite_cpu":
                name, cpu, wall = value
                _cpu[name] += cpu
                _wall[name] += wall


_is_controller = False  # the xdist controller, which only hears the workers' reports


def pytest_configure(config):
    global _is_controller
    _is_controller = not hasattr(config, "workerinput") and bool(config.getoption("numprocesses", None))


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    tr = terminalreporter
    tr.section("CPU by test file (bench/suite_cpu.py)")
    for name, cpu in _cpu.most_common():
        tr.write_line(f"{cpu:8.1f} s CPU {_wall[name]:8.1f} s wall  {name}")
    tr.write_line(f"{sum(_cpu.values()):8.1f} s CPU {sum(_wall.values()):8.1f} s wall  in all (wall summed over tests)")
