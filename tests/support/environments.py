"""The environment a test gives a process it starts: this one's, with
``PYTHONPATH`` set to the tree the process should import from (the project,
a release, a probe's folder) or removed (a release that must find its own
``grader``, as a student's copy would), and whatever else the test names.
One helper where four test files each kept their own."""

import os
from pathlib import Path


def environment(pythonpath: str | Path | None, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    env.update(more)
    return env
