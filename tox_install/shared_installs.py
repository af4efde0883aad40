"""One copy of each installed file (torch above all) on disk for all of the
course's tox environments.

Each environment (``grade``, ``write``, ``lab``, ``test``, ...) installs
torch from the same wheel: about 1 GB each, the same bytes, and many other
packages twice or more. tox runs this before an environment's commands
(``commands_pre``)::

    python -m tox_install.shared_installs {work_dir}

It hard-links the environment's installed files to one store under tox's
work folder, ``.tox/.shared/py311/`` (one per Python version): the first
environment to install a file fills the store, the others give their
copies up for links to it. A file is linked only where its contents are the
store's, byte for byte; compiled bytecode (``__pycache__``) is left alone.
An environment is walked again only when its packages change (a mark in
the environment keeps the list of what was installed). pip keeps working
as before: an upgrade or an uninstall in one environment replaces or
removes its own links, never the store's files. Where links cannot be made
(another file system, Windows without the right), nothing changes.
"""

import filecmp
import hashlib
import os
import sys
import sysconfig

MARK = ".attention-shared-files"


def _installed(site: str) -> str:
    """What is installed in ``site``, as a short digest of its packages' records."""
    try:
        records = sorted(n for n in os.listdir(site) if n.endswith(".dist-info"))
    except OSError:
        return ""
    return hashlib.sha256("\n".join(records).encode()).hexdigest()[:16] if records else ""


def share(work_dir: str, site: str | None = None, prefix: str = sys.prefix) -> int:
    """Link this environment's installed files to the store; how many were
    linked. ``site``: where its packages are (this interpreter's by default);
    ``prefix``: its folder, where the mark is kept."""
    site = site or sysconfig.get_paths()["purelib"]
    installed = _installed(site)
    if not installed:
        return 0
    mark = os.path.join(prefix, MARK)
    try:
        with open(mark, encoding="utf-8") as f:
            if f.read() == installed:
                return 0  # done for what is installed now
    except OSError:
        pass
    store = os.path.join(work_dir, ".shared", f"py{sys.version_info.major}{sys.version_info.minor}")
    linked = 0
    for folder, dirs, files in os.walk(site):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            mine = os.path.join(folder, name)
            kept = os.path.join(store, os.path.relpath(mine, site))
            try:
                if os.path.islink(mine):
                    continue
                if not os.path.exists(kept):
                    os.makedirs(os.path.dirname(kept), exist_ok=True)
                    os.link(mine, kept)  # the first environment's file is the store's
                    continue
                if os.path.samefile(mine, kept) or not filecmp.cmp(mine, kept, shallow=False):
                    continue
                spare = mine + ".attention-link"
                os.link(kept, spare)
                os.replace(spare, mine)  # one rename: the file is never missing
                linked += 1
            except OSError:
                continue  # this file stays a copy of its own
    with open(mark, "w", encoding="utf-8") as f:
        f.write(installed)
    return linked


if __name__ == "__main__":
    share(sys.argv[1])
