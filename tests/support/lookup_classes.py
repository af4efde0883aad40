"""The lookup submission's classes, derived from the solutions (see test_unseen_inputs.py).

``derive(exercise)`` reads ``solutions/<id>.py`` with ``ast`` and, for each
class the table row (grader/exercises.py) ``defines`` (the capitalised
names), keeps what the contract needs and drops what computes:

* kept as written: the class line, its ``__init__`` (so its parameters,
  buffers and sub-modules, and thus its ``state_dict``, are the solution's,
  and the grader's stand-ins are built where the solution builds its parts),
  any other statement of the class body that is not a method or the
  docstring, and the methods ``__init__`` calls (``self.<name>(...)``, and
  those they call); and the module's imports that bind a name the kept code
  uses (``torch``, ``nn``, ``from ex5_head import Head``);
* replaced: ``forward`` and each method of the row's ``methods``
  (``GPT.generate``), by ``def <m>(self, *args): return _answer("<Class>" or
  "<Class.method>", list(args), module=self)`` (the checks call them with
  positional arguments only); ``_answer`` is the lookup submission's;
* dropped: every other method, the docstrings and the comments.

What cannot be derived is a problem, said in words: a class of ``defines``
that the solution does not define, a method of ``methods`` whose class is
not in ``defines`` or that the solution's class lacks, and a name the kept
code uses that no kept import or lookup class binds (a module-level helper
of the solution, say), which would fail at import in the lookup file.
"""

import ast
import builtins
import copy
from dataclasses import dataclass
from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"

# Defined by the lookup submission around the derived classes.
LOOKUP_NAMES = frozenset({"_answer"})


@dataclass(frozen=True)
class Derived:
    source: str  # the imports and classes, "" for an exercise of functions only
    problems: tuple[str, ...]  # what could not be derived (none: ())


def answering(method: str, name: str) -> ast.FunctionDef:
    """``def <method>(self, *args): return _answer("<name>", list(args), module=self)``."""
    code = f"def {method}(self, *args):\n    return _answer({name!r}, list(args), module=self)\n"
    return ast.parse(code).body[0]


def called_on_self(node: ast.AST) -> set[str]:
    """The names of ``self.<name>(...)`` calls in ``node``."""
    return {call.func.attr for call in ast.walk(node) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"}


def helpers_of(init: ast.FunctionDef, methods: dict[str, ast.FunctionDef], replaced: set[str]) -> list[str]:
    """The methods ``init`` calls on self, and those they call, in turn (not the replaced ones)."""
    wanted: list[str] = []
    todo = [init]
    while todo:
        for name in sorted(called_on_self(todo.pop())):
            if name in methods and name not in replaced and name not in wanted and name != "__init__":
                wanted.append(name)
                todo.append(methods[name])
    return wanted


def lookup_class(cls: ast.ClassDef, name_of: dict[str, str], problems: list[str], where: str) -> ast.ClassDef:
    """``cls`` with ``__init__`` kept and ``forward`` and the methods in ``name_of`` (method -> answer name) answering."""
    methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for method, name in name_of.items():
        if method != "forward" and method not in methods:
            problems.append(f"{where}: {name} is in the table's methods, but the solution's {cls.name} has no {method}")
    body: list[ast.stmt] = []
    for i, node in enumerate(cls.body):
        is_docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        if not is_docstring and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body.append(node)  # class attributes
    if "__init__" in methods:
        body.append(methods["__init__"])
        body += [methods[h] for h in helpers_of(methods["__init__"], methods, set(name_of))]
    body += [answering(method, name) for method, name in name_of.items()]
    out = copy.copy(cls)  # its name, bases and decorators
    out.body = body
    return out


def bound_names(tree: ast.AST) -> set[str]:
    """Names the code of ``tree`` binds itself: arguments, assignments, loop and comprehension targets, definitions."""
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    out |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.posonlyargs + n.args + n.kwonlyargs}
    out |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in (n.vararg, n.kwarg) if a is not None}
    out |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return out


def free_names(classes: list[ast.ClassDef]) -> set[str]:
    """The names the classes use but do not bind, builtins and the lookup's own names aside."""
    module = ast.Module(body=list(classes), type_ignores=[])
    used = {n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - bound_names(module) - set(dir(builtins)) - LOOKUP_NAMES


def needed_imports(tree: ast.Module, names: set[str]) -> tuple[list[ast.stmt], set[str]]:
    """The module-level imports of ``tree`` that bind any of ``names`` (only those aliases), and the names they bind."""
    kept: list[ast.stmt] = []
    bound: set[str] = set()
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        aliases = [a for a in node.names if (a.asname or a.name.split(".")[0]) in names]
        if aliases:
            bound |= {a.asname or a.name.split(".")[0] for a in aliases}
            kept.append(ast.ImportFrom(module=node.module, names=aliases, level=node.level) if isinstance(node, ast.ImportFrom) else ast.Import(names=aliases))
    return kept, bound


def derive(exercise, solutions: Path = SOLUTIONS) -> Derived:
    """The lookup classes of a table row, from ``solutions/<id>.py``; see the module's docstring."""
    classes = [name for name in exercise.defines if name[0].isupper()]
    where = f"{exercise.id} (solutions/{exercise.filename})"
    problems = [f"{where}: {m} is in the table's methods, but {m.split('.')[0]} is not a class of its defines" for m in exercise.methods if m.split(".")[0] not in classes]
    if not classes:
        return Derived("", tuple(problems))
    tree = ast.parse((solutions / exercise.filename).read_text(encoding="utf-8"))
    found = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    problems += [f"{where}: the table defines the class {name}, the solution does not" for name in classes if name not in found]
    kept = []
    for node in tree.body:  # in the solution's order: a class may build the ones above it
        if isinstance(node, ast.ClassDef) and node.name in classes:
            name_of = {"forward": node.name} | {m.split(".", 1)[1]: m for m in exercise.methods if m.split(".")[0] == node.name}
            kept.append(lookup_class(node, name_of, problems, where))
    free = free_names(kept)
    imports, imported = needed_imports(tree, free)
    problems += [f"{where}: the kept code uses {name}, which no import of the solution nor lookup class binds" for name in sorted(free - imported - {c.name for c in kept})]
    module = ast.Module(body=imports + kept, type_ignores=[])
    return Derived("\n\n" + ast.unparse(ast.fix_missing_locations(module)) + "\n", tuple(problems))
