"""The README's Layout is the tree git holds (issue 39): every top-level
folder of the project, every room of grader/ and every module at grader/'s
top level is named there, and every name there exists. A room or a door
added without a line fails here, and so does a line left for one gone; what
each module of a room does is its own docstring's business."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layout_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("```", readme.index("## Layout"))
    return readme[start + 3 : readme.index("```", start + 3)]


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [Path(p) for p in out.split("\0") if p]


def expected() -> set[str]:
    """What the Layout must name, as it names it: ``docs/``, ``grader/teacher/batch/``, ``grader/cli``."""
    names = set()
    for path in tracked():
        if len(path.parts) > 1 and not path.parts[0].startswith("."):
            names.add(path.parts[0] + "/")
        if path.parts[0] == "grader" and path.suffix == ".py":
            if len(path.parts) == 2 and path.name != "__init__.py":
                names.add(f"grader/{path.stem}")
            rooms = path.parts[1:-1]
            for depth in range(1, len(rooms) + 1):
                names.add("grader/" + "/".join(rooms[:depth]) + "/")
    return names


def named() -> set[str]:
    """What the Layout names: a folder by its indentation under its parent; modules as ``a, b``."""
    out, parents = set(), []
    for line in layout_block().splitlines():
        m = re.match(r"( *)([a-z_]+/|[a-z_]+(?:, [a-z_]+)*)(\s|$)", line)
        if not m or len(m.group(1)) >= 16:  # a description's continuation
            continue
        depth = len(m.group(1)) // 2
        parents = parents[:depth]
        head = m.group(2)
        prefix = "".join(parents)
        if head.endswith("/"):
            out.add(prefix + head)
            parents.append(head)
        else:
            out |= {prefix + name.strip() for name in head.split(",")}
    return out


def test_the_layout_names_every_folder_room_and_door():
    assert {"grader/", "grader/engine/", "grader/teacher/batch/", "grader/cli", "tests/"} <= expected()
    missing = sorted(expected() - named())
    assert not missing, f"README's Layout does not name: {missing}"


def test_the_layout_names_nothing_that_is_gone():
    gone = sorted(named() - expected() - {"grader/__main__"})
    assert not gone, f"README's Layout names what git does not hold: {gone}"


def test_a_new_room_or_a_gone_one_is_caught(monkeypatch):
    """The reader itself, on a tree with one room more and a Layout with one line too many."""
    real = tracked()
    monkeypatch.setattr(__import__(__name__), "tracked", lambda: real + [Path("grader/teacher/mail/send.py")])
    assert "grader/teacher/mail/" in expected() - named()
    block = layout_block()
    monkeypatch.setattr(__import__(__name__), "layout_block", lambda: block.replace("  child/", "  gone/          a room no more\n  child/"))
    assert "grader/gone/" in named() - expected()
