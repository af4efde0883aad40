"""What is wrong with code that runs: the grader's verdict in one line, and a
probe of whether the trained model sees the future.

The grader runs in a process of its own (``python -m grader grade FOLDER``,
a few seconds) while the model trains. A model that sees the next character
learns to copy it, and its loss falls lower than any honest model's: the
probe changes a later character and looks at the earlier positions' logits.
"""

import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)  # where the grader is: the course's folder, or the student edition


class Grading:
    """``python -m grader grade FOLDER --json``, started now, read by ``line()``."""

    def __init__(self, folder: str):
        self._dir = tempfile.TemporaryDirectory(prefix="write-grade-")
        self._json = os.path.join(self._dir.name, "results.json")
        env = {**os.environ, "PYTHONPATH": PROJECT, "PYTHONDONTWRITEBYTECODE": "1"}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "grade", os.path.abspath(folder), "--json", self._json],
            cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def line(self, timeout: float = 300) -> str:
        try:
            self._proc.wait(timeout=timeout)
            with open(self._json, encoding="utf-8") as f:
                return summary(json.load(f))
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            self.stop()
            return f"评分 / grader: 没能运行 / could not run ({type(exc).__name__})"
        finally:
            self._dir.cleanup()

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


def summary(results: dict) -> str:
    """One line: the score, and the points each exercise loses."""
    got, most, lost = 0.0, 0.0, {}
    public_only = True
    for test in results["tests"]:
        got += test["score"]
        most += test["max_score"]
        ex = test["tags"][0]
        lost[ex] = lost.get(ex, 0.0) + test["max_score"] - test["score"]
        public_only = public_only and test["tags"][1] == "public"
    which = "（公开检查 / public checks）" if public_only else ""
    line = f"评分 / grader: {got:g}/{most:g}{which}"
    losing = [(ex, p) for ex, p in lost.items() if p > 0]  # in the grader's order, ex0 first
    if losing:
        parts = ", ".join(f"{ex} −{p:g}" for ex, p in losing)
        line += f" — 丢分 / points lost: {parts}（tox -e grade 看详情 / for details）"
    return line


@torch.no_grad()
def sees_the_future(model, vocab_size: int, block_size: int) -> bool:
    """Whether changing one character changes the logits at any earlier position
    (a model whose forward fails on one short sequence is not judged here)."""
    was_training = model.training
    model.eval()
    try:
        T = min(block_size, 12)
        x = torch.randint(vocab_size, (1, T), generator=torch.Generator().manual_seed(0))  # (1, T)
        logits, _ = model(x)  # (1, T, V)
        for t in range(1, T):
            y = x.clone()
            y[0, t] = (y[0, t] + 1) % vocab_size
            changed, _ = model(y)
            if not torch.allclose(logits[:, :t], changed[:, :t], atol=1e-5, rtol=1e-4):
                return True
        return False
    except Exception:  # noqa: BLE001 - the student's forward; the grader's line says what is wrong
        return False
    finally:
        model.train(was_training)


def too_good(loss: float) -> str:
    return (
        f"⚠ 模型看得见后面的字：改动后面的一个字，前面位置的输出也跟着变了。这样的模型靠抄下一个字来降低损失"
        f"（这次训练后是 {loss:.2f}）：训练得越久，损失就越是好得不真实；可写字时后面没有字可抄，写出来的东西就没有意思。"
        "检查你的因果掩码（ex4_masking、ex5_head）。\n"
        "⚠ The model sees the future: changing a later character changes the outputs at earlier positions. "
        f"Such a model lowers its loss ({loss:.2f} after this training) by copying the next character: the longer "
        "it trains, the more its loss is too good to be true. But when it writes there is no next character to "
        "copy, so what it writes makes no sense. Check your causal mask (ex4_masking, ex5_head)."
    )
