"""The student's own model: their exercises, imported from their folder.

Every exercise is tried first, in order from ex0, on a tiny input: the first
one that is not finished (its stub still raises ``NotImplementedError``),
that cannot be imported, or that raises, is named, and nothing is trained.
Wrong answers that run are not caught here: the grader and the training say
what they are.
"""
import importlib
import os
import sys
import traceback
from dataclasses import dataclass

import torch

from grader.exercises import BY_ID


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


# - the tiny calls, one per exercise -


def _ex0(m):
    m.weighted_sum(torch.tensor([2.0, 1.0, 0.0]), torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]]))


def _ex1(m):
    m.averaging_matrix(3)
    m.average_past(torch.ones(1, 3, 2))


def _ex2(m):
    m.attention_scores(torch.ones(1, 3, 2), torch.ones(1, 3, 2))


def _ex3(m):
    m.scale_scores(torch.ones(1, 3, 3), 4)


def _ex4(m):
    m.causal_mask(torch.zeros(1, 3, 3))
    m.causal_weights(torch.zeros(1, 3, 3))


def _ex5(m):
    m.Head(4, 2, 8)(torch.ones(1, 3, 4))


def _ex6(m):
    x = torch.ones(1, 3, 8)
    m.MultiHeadAttention(8, 2, 4)(x)
    m.FeedForward(8)(x)
    m.Block(8, 2, 4)(x)


def _ex7(m):
    gpt = m.GPT(vocab_size=10, n_embd=8, n_head=2, n_layer=1, block_size=4)
    idx = torch.zeros(1, 3, dtype=torch.long)
    gpt(idx, idx)
    gpt.generate(idx, 2)


TRIES = {
    "ex0_weighted_sum": _ex0,
    "ex1_averaging": _ex1,
    "ex2_scores": _ex2,
    "ex3_scaling": _ex3,
    "ex4_masking": _ex4,
    "ex5_head": _ex5,
    "ex6_block": _ex6,
    "ex7_gpt": _ex7,
}


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
        f"Not ready to train: finish {en} first; it is not written yet ({line}). "
        "Then check it with tox -e grade and run tox -e write again.",
    )


def failed(ex: str, exc: BaseException, line: str, doing: tuple[str, str] = ("试运行", "a tiny test run")) -> Problem:
    zh, en = _name(ex)
    error = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]
    at = f"（{line}）" if line else ""
    at_en = f" ({line})" if line else ""
    return Problem(
        ex,
        f"还不能训练：{zh} 在{doing[0]}时出错{at}：\n  {error}\n先用 tox -e grade -- --only {ex} 看看哪里不对。",
        f"Not ready to train: {en} raised an error in {doing[1]}{at_en}:\n  {error}\n"
        f"Run tox -e grade -- --only {ex} to see what is wrong.",
    )


# - loading -


def load(folder: str) -> dict:
    """The student's exercise modules by id, each tried on a tiny input, in
    order. Raises ``NotReady`` naming the first exercise that is not."""
    folder = os.path.abspath(folder)
    if folder in sys.path:
        sys.path.remove(folder)
    sys.path.insert(0, folder)  # the exercises import each other by name (from ex5_head import Head)
    modules = {}
    for ex in TRIES:  # ex0 to ex7, in order
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
            with torch.random.fork_rng():
                TRIES[ex](modules[ex])
        except NotImplementedError as exc:
            blamed, line = where(exc, folder)
            raise NotReady(unfinished(blamed or ex, line)) from None
        except Exception as exc:  # noqa: BLE001
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
