"""The student's own model: their exercises, imported from their folder.

Every exercise of the table (grader/exercises.py) is looked at first, in
order from ex0: the first one that is missing, cannot be imported, lacks a
name its row ``defines`` or is not finished (a ``raise NotImplementedError``
of its stub is still in what the row defines) is named, and nothing is
trained. Then the model that is trained is tried once on a tiny input; where
that raises, the exercise of the student's line that raised is named. Wrong
answers that run are not caught here: the grader and the training say what
they are.
"""

import ast
import importlib
import os
import sys
import traceback
from dataclasses import dataclass

import torch

from grader.exercises import BY_ID, EXERCISES


@dataclass(frozen=True)
class Problem:
    """Why the student's code cannot be trained yet, in both languages."""

    exercise: str
    zh: str
    en: str


class NotReady(Exception):
    def __init__(self, problem: Problem):
        super().__init__(problem.en)
        self.problem = problem


# - what is not finished: from the table -


def stub_line(module, exercise) -> int:
    """The line of the first ``raise NotImplementedError`` left in what the
    exercise's row defines (its functions, its classes' methods), 0 if none.
    A name the row defines that the module lacks raises AttributeError."""
    path = getattr(module, "__file__", None) or ""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])
    for name in exercise.defines:
        getattr(module, name)  # AttributeError: the row's name is missing
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Raise) and _not_implemented(inner.exc):
                        return inner.lineno
    return 0


def _not_implemented(exc) -> bool:
    if isinstance(exc, ast.Call):
        exc = exc.func
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


# The model that tox -e write trains (write/command.py), tried once on a tiny
# input after every exercise has been found finished: it runs the student's
# code that the training runs (ex5 to ex7, and the earlier exercises it imports).
MODEL = ("ex7_gpt", "GPT")


def try_model(GPT) -> None:
    gpt = GPT(vocab_size=10, n_embd=8, n_head=2, n_layer=1, block_size=4)
    idx = torch.zeros(1, 3, dtype=torch.long)
    gpt(idx, idx)
    gpt.generate(idx, 2)


# - where a mistake is -


def where(exc: BaseException, folder: str) -> tuple[str, str]:
    """(exercise id, "file, line") of the last traceback frame in the student's folder."""
    folder = os.path.abspath(folder)
    found = ("", "")
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        frames.append(traceback.FrameSummary(exc.filename, exc.lineno or 0, ""))
    for frame in frames:
        path = os.path.abspath(frame.filename)
        if os.path.dirname(path) == folder and path.endswith(".py"):
            name = os.path.basename(path)[:-3]
            found = (name, f"{os.path.join(_shown(folder), name + '.py')}:{frame.lineno}")
    return found


def _shown(folder: str) -> str:
    """The folder as the student would write it: relative to where they are, if inside."""
    rel = os.path.relpath(folder)
    return folder if rel.startswith("..") else rel


def _name(ex: str) -> tuple[str, str]:
    e = BY_ID.get(ex)
    return (f"{ex}（{e.zh}）", f"{ex} ({e.en})") if e else (ex, ex)


def unfinished(ex: str, line: str) -> Problem:
    zh, en = _name(ex)
    return Problem(
        ex,
        f"还不能训练：先完成 {zh}，它还没写完（{line}）。写完后用 tox -e grade 检查，再运行 tox -e write。",
        f"Not ready to train: finish {en} first; it is not written yet ({line}). Then check it with tox -e grade and run tox -e write again.",
    )


def failed(ex: str, exc: BaseException, line: str, doing: tuple[str, str] = ("试运行", "a tiny test run")) -> Problem:
    zh, en = _name(ex)
    error = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]
    at = f"（{line}）" if line else ""
    at_en = f" ({line})" if line else ""
    return Problem(
        ex,
        f"还不能训练：{zh} 在{doing[0]}时出错{at}：\n  {error}\n先用 tox -e grade -- --only {ex} 看看哪里不对。",
        f"Not ready to train: {en} raised an error in {doing[1]}{at_en}:\n  {error}\nRun tox -e grade -- --only {ex} to see what is wrong.",
    )


# - loading -


def load(folder: str) -> dict:
    """The student's exercise modules by id, in the table's order: each
    imported and looked at for a stub's ``raise NotImplementedError`` in what
    its row defines; then the model trained, tried on a tiny input. Raises
    ``NotReady`` naming the first exercise that is not ready."""
    folder = os.path.abspath(folder)
    if folder in sys.path:
        sys.path.remove(folder)
    sys.path.insert(0, folder)  # the exercises import each other by name (from ex5_head import Head)
    modules = {}
    for exercise in EXERCISES:  # in order, from ex0
        ex = exercise.id
        path = os.path.join(folder, ex + ".py")
        shown = os.path.join(_shown(folder), ex + ".py")
        if not os.path.isfile(path):
            zh, en = _name(ex)
            raise NotReady(Problem(ex, f"还不能训练：找不到 {shown}（{zh}）。", f"Not ready to train: {shown} ({en}) is missing."))
        try:
            modules[ex] = _import(ex, path)
        except Exception as exc:  # noqa: BLE001 - any failure of the student's import is theirs to fix
            blamed, line = where(exc, folder)
            raise NotReady(failed(blamed or ex, exc, line, ("导入", "its import"))) from None
        try:
            line = stub_line(modules[ex], exercise)
        except AttributeError as exc:
            raise NotReady(failed(ex, exc, "")) from None
        if line:
            raise NotReady(unfinished(ex, f"{shown}:{line}"))
    ex, name = MODEL
    try:
        with torch.random.fork_rng():
            try_model(getattr(modules[ex], name))
    except NotImplementedError as exc:
        blamed, line = where(exc, folder)
        raise NotReady(unfinished(blamed or ex, line)) from None
    except Exception as exc:  # noqa: BLE001 - any error of the student's model is said as theirs
        blamed, line = where(exc, folder)
        raise NotReady(failed(blamed or ex, exc, line)) from None
    return modules


def _import(ex: str, path: str):
    """The module ``ex`` from ``path``: the one already imported if it came from there."""
    old = sys.modules.get(ex)
    if old is not None and os.path.abspath(getattr(old, "__file__", "") or "") == path:
        return old
    sys.modules.pop(ex, None)
    return importlib.import_module(ex)
