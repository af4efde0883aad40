"""The README's Layout names every module of grader/ (issue 39): a module
added without a line there fails here, so the map a newcomer reads is the
tree git holds."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layout_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\ngrader/\n  cli, __main__")
    return readme[start : readme.index("```", start)]


def modules() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "grader"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [path for path in listed if path.endswith(".py") and not path.endswith("__init__.py")]


def test_the_layout_names_every_module_of_the_grader():
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", layout_block()))
    assert len(modules()) > 50
    missing = [path for path in modules() if Path(path).stem not in named]
    assert not missing, f"README's Layout does not name: {missing}"


def test_the_layout_names_no_module_that_is_gone():
    """Each name at the start of a line of the tree is a module or folder that exists."""
    stems = {Path(path).stem for path in modules()} | {Path(path).parent.name for path in modules()}
    heads = []
    for line in layout_block().splitlines()[1:]:
        m = re.match(r"\s+([a-z_]+(?:, [a-z_]+)*)/?(\s|$)", line)
        if m and not line.startswith(" " * 16):
            heads += [name.strip() for name in m.group(1).split(",")]
    assert heads and all(name in stems for name in heads), [name for name in heads if name not in stems]
