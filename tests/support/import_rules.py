"""The import rules of the grader's layers, read from the source (AST).

The tree says who runs what, one room per job, on floors (``FLOORS``):
``grader/child/`` runs in the processes that run submission code,
``grader/handin/`` reads what a student hands in (files, notebooks)
without running it, ``grader/authoring/`` is what checks are written with, ``grader/engine/``
decides points in the grading process, ``grader/student/`` is what a student
runs (the grade command, its report, watch, the warm grader),
``grader/teacher/`` is the teacher's tools, in rooms of their own, and the
command line is on top. A module imports from its own floor or below, never
up; no room holds more than ``MOST_IN_A_ROOM`` modules. These rules keep it
so; every import counts, at the top of a module or inside a function (a lazy
import still runs).

``violations(root)`` reads a course tree (the project, or a copy of it in a
test) and returns one line per broken rule.
"""

import ast
from pathlib import Path

# A child may use only its own layer and these shared modules: it runs next
# to submission code, which must never find the checks, the solutions or the
# engine that decides points in its process.
# Of the grader, only what CHILD_MAY_USE names; of the course, never these.
CHILD_MAY_USE = ("grader.child", "grader.exercises", "grader.text", "grader.files", "grader.__version__")
NEVER_IN_A_CHILD = ("checks", "solutions")

# Teacher modules that run in the batch's own process, the class report and
# the command line's --help: they stay free of torch (its import costs
# seconds, and the batch's process never needs it). A module they import
# must be torch-free at its top level too (its functions may need torch in
# another process: batch_workers' Grader runs in the workers).
TORCH_FREE = (
    "grader.teacher.batch.command", "grader.teacher.batch.output", "grader.teacher.report.class_data",
    "grader.teacher.report.class_figures", "grader.teacher.report.class_files", "grader.teacher.report.class_report",
    "grader.teacher.batch.gradebook", "grader.teacher.intake.submissions", "grader.teacher.batch.progress",
    "grader.teacher.report.similar", "grader.teacher.stubs", "grader.teacher.verbs", "grader.cli",
)  # fmt: skip

# What a notebook's kernel imports to grade (``check()``): the kernel runs the
# student's cells, so the grader never lives there. These modules, and all
# they import at any depth (a lazy import too), load neither torch nor the
# engine that decides points; the warm grader does that in its own process.
IN_A_KERNEL = ("grader.notebook", "grader.student.warm_grader")
NEVER_IN_A_KERNEL = ("torch", "grader.engine", "grader.child", "checks", "solutions")

# The student edition is the course without grader/teacher/ (and without the
# solutions and hidden checks): nothing it ships may import the teacher's
# layer, except the command line's one guarded import of its commands.
STUDENT_EDITION = ("grader", "checks/public", "exercises", "experiments", "write")
MAY_IMPORT_TEACHER = {"grader.cli": {"grader.teacher.verbs"}}


# The floors, lowest first: a module may import from its own floor and the
# floors below it. A module's floor is that of the longest name here it is
# under (``grader.exercises`` is shared; ``grader.notebook``, the check() a
# notebook imports, is the student's).
FLOORS = (
    ("shared", ("grader", "grader.exercises", "grader.files", "grader.text")),
    ("child", ("grader.child",)),
    ("hand-in", ("grader.handin",)),
    ("authoring", ("grader.authoring",)),
    ("engine", ("grader.engine",)),
    ("student", ("grader.student", "grader.notebook", "grader.github_classroom")),
    ("teacher", ("grader.teacher",)),
    ("command line", ("grader.cli", "grader.__main__")),
)
# A room (a folder of grader/) holds at most this many modules, its
# __init__.py aside; grader/'s own top level, at most TOP_LEVEL_MOST (the
# doors: cli, notebook, github_classroom; and the shared vocabulary).
MOST_IN_A_ROOM = 15
TOP_LEVEL_MOST = 6


def floor_of(module: str) -> int | None:
    """The index in FLOORS of ``module``'s floor; None outside the grader."""
    best, floor = -1, None
    for i, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, floor = len(prefix), i
    return floor


def room_sizes(root: Path) -> list[str]:
    """One line per room of grader/ with more modules than it may hold."""
    found = []
    for folder in sorted({p.parent for p in Path(root, "grader").rglob("*.py") if "__pycache__" not in p.parts}):
        modules = [p.name for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
        most = TOP_LEVEL_MOST if folder == Path(root, "grader") else MOST_IN_A_ROOM
        if len(modules) > most:
            found.append(f"{folder.relative_to(root)}/: {len(modules)} modules; a room holds at most {most}")
    return found


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, name: str) -> list[tuple[str, int, bool]]:
    """(module imported, line, at the module's top level) for each import
    of ``path``. ``from grader import x`` counts as ``grader.x`` (x may be a
    module); relative imports are resolved against ``name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top = set(map(id, tree.body))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package, one level up per extra dot
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            out.append((base, node.lineno, id(node) in top))
            out += [(f"{base}.{a.name}", node.lineno, id(node) in top) for a in node.names]
    return out


def _within(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


class Tree:
    def __init__(self, root: Path):
        self.root = root
        self.files = {}
        for folder in STUDENT_EDITION + ("checks/hidden", "solutions"):
            base = root / folder
            paths = sorted(base.rglob("*.py")) if base.is_dir() else []
            for path in paths:
                if "__pycache__" not in path.parts:
                    self.files[module_name(root, path) if folder == "grader" else str(path.relative_to(root))] = path
        self._imports = {}

    def imports(self, name: str):
        if name not in self._imports:
            self._imports[name] = imports(self.files[name], name) if name in self.files else []
        return self._imports[name]

    def grader_modules(self):
        return [n for n in self.files if n == "grader" or n.startswith("grader.")]

    def top_level_closure(self, name: str, lazy: bool = False) -> dict[str, list[str]]:
        """Every module ``name`` loads when imported (its top-level imports,
        and theirs; with ``lazy``, the imports inside functions too), each
        with the chain that loads it."""
        chains = {name: [name]}
        todo = [name]
        while todo:
            current = todo.pop()
            for imported, _, at_top in self.imports(current):
                if not at_top and not lazy:
                    continue
                for loaded in _parents(imported):
                    if loaded not in chains:
                        chains[loaded] = chains[current] + [loaded]
                        if loaded in self.files:
                            todo.append(loaded)
        return chains


def _parents(module: str) -> list[str]:
    """Importing a.b.c loads a, a.b and a.b.c."""
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _cycles(tree: Tree) -> list[list[str]]:
    """The grader's modules that import each other, in a circle, a lazy
    import included (one cycle per strongly connected group, Tarjan's
    algorithm): a module is read from the modules below it, never back."""
    modules = set(tree.grader_modules())
    graph = {name: sorted({p for imported, _, _ in tree.imports(name) for p in _parents(imported) if p in modules and p != name and tree.files[p].name != "__init__.py"}) for name in sorted(modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def violations(root: Path) -> list[str]:
    tree = Tree(Path(root))
    found = []

    def where(name: str, line: int) -> str:
        return f"{tree.files[name].relative_to(tree.root)}:{line}"

    for name in tree.grader_modules():
        layer = name.split(".")[1] if name.count(".") >= 1 else ""
        for imported, line, _ in tree.imports(name):
            if layer == "child":
                if _within(imported, NEVER_IN_A_CHILD) or (imported.startswith("grader.") and not _within(imported, CHILD_MAY_USE)):
                    found.append(f"{where(name, line)}: the child module {name} imports {imported} "
                                 f"(a child may use only {', '.join(CHILD_MAY_USE)})")  # fmt: skip
            if layer != "teacher" and _within(imported, ("grader.teacher",)):
                if imported not in MAY_IMPORT_TEACHER.get(name, ()) and imported != "grader.teacher":
                    found.append(f"{where(name, line)}: {name} imports the teacher's {imported}; "
                                 "the student edition has no grader/teacher/")  # fmt: skip

    # No import up a floor: the child serves the engine, the engine the
    # student's commands, and all of them the command line, never the other
    # way round.
    for name in tree.grader_modules():
        own = floor_of(name)
        for imported, line, _ in tree.imports(name):
            floor = floor_of(imported)
            if floor is not None and own is not None and floor > own:
                found.append(f"{where(name, line)}: {name} (floor: {FLOORS[own][0]}) imports {imported}, "
                             f"up a floor ({FLOORS[floor][0]})")  # fmt: skip

    found += room_sizes(tree.root)

    for cycle in _cycles(tree):
        found.append(f"{tree.files[cycle[0]].relative_to(tree.root)}: an import cycle: {' -> '.join(cycle + cycle[:1])}")

    for name in tree.files:
        if name.startswith("grader"):
            continue
        for imported, line, _ in tree.imports(name):
            if _within(imported, ("grader.teacher",)) and not name.startswith(("checks/hidden", "solutions")):
                found.append(f"{name}:{line}: imports the teacher's {imported}; the student edition has no grader/teacher/")

    for name in TORCH_FREE:
        if name not in tree.files:
            found.append(f"{name}: listed as torch-free but not found")
            continue
        for imported, line, _ in tree.imports(name):
            for loaded, chain in tree.top_level_closure(imported).items() if imported in tree.files else [(imported, [imported])]:
                if _within(loaded, ("torch",)):
                    found.append(f"{where(name, line)}: the torch-free {name} loads torch through {' -> '.join(chain)}")
                    break

    for name in IN_A_KERNEL:
        if name not in tree.files:
            found.append(f"{name}: listed as imported in a kernel but not found")
            continue
        for loaded, chain in tree.top_level_closure(name, lazy=True).items():
            if _within(loaded, NEVER_IN_A_KERNEL):
                found.append(f"{tree.files[name].relative_to(tree.root)}: {name}, imported in a notebook's kernel, "
                             f"loads {loaded} through {' -> '.join(chain)}")  # fmt: skip

    for name in tree.grader_modules():
        path = tree.files[name]
        if path.name == "__init__.py":
            body = ast.parse(path.read_text(encoding="utf-8")).body
            if any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in body):
                found.append(f"{path.relative_to(tree.root)}: imports something; a package's __init__.py stays empty "
                             "(importing grader.teacher.batch.command must not load anything else)")  # fmt: skip
    return sorted(set(found))
