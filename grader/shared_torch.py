"""One copy of torch on disk for all of the course's tox environments.

Each environment (``grade``, ``write``, ``lab``, ``test``, ...) installs
torch from the same wheel: about 1 GB each, the same bytes. tox runs this
before an environment's commands (``commands_pre``)::

    python -m grader.shared_torch {work_dir}

It hard-links the environment's torch files to one store under tox's work
folder, ``.tox/.shared/py311-torch-2.13.0+cpu/``: the first environment fills
the store, the others give their copies up for links to it. A file is
linked only where its size and contents are the store's; an environment
done once is marked and skipped after that (a few milliseconds). pip keeps
working as before: an upgrade or an uninstall in one environment replaces
or removes its own links, never the store's files. Where links cannot be
made (another file system, Windows without rights), nothing changes.
"""
import filecmp
import os
import sys
import sysconfig

MARK = ".attention-shared-torch"


def _torch_install(site: str) -> tuple[str, str] | None:
    """(torch's folder, the name of its install record: ``torch-2.13.0+cpu.dist-info``), if installed."""
    path = os.path.join(site, "torch")
    records = [n for n in os.listdir(site) if n.startswith("torch-") and n.endswith(".dist-info")] if os.path.isdir(path) else []
    return (path, records[0]) if len(records) == 1 else None


def share(work_dir: str, site: str | None = None, prefix: str = sys.prefix) -> int:
    """Link this environment's torch files to the store; how many were
    linked. ``site``: where its packages are (this interpreter's by default);
    ``prefix``: its folder, where the mark is kept."""
    found = _torch_install(site or sysconfig.get_paths()["purelib"])
    if found is None:
        return 0
    torch_dir, record = found
    stamp = f"py{sys.version_info.major}{sys.version_info.minor}-{record.removesuffix('.dist-info')}"
    mark = os.path.join(prefix, MARK)
    try:
        with open(mark, encoding="utf-8") as f:
            if f.read() == stamp:
                return 0  # done for this install of torch
    except OSError:
        pass
    store = os.path.join(work_dir, ".shared", stamp)
    linked = 0
    for folder, _, files in os.walk(torch_dir):
        for name in files:
            mine = os.path.join(folder, name)
            kept = os.path.join(store, os.path.relpath(mine, torch_dir))
            try:
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
        f.write(stamp)
    return linked


if __name__ == "__main__":
    share(sys.argv[1])
