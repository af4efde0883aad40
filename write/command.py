"""``python -m write [FOLDER]``: train a small GPT built from your own
exercises on the course's own text, then let it write.

Trains on the first nine tenths of the text and holds out the last tenth,
and keeps the weights of the step where the loss on the held-out tenth was
lowest. Prints the loss before and with those weights on both (the training
text and the held-out text), which step they are from, the grader's verdict
in one line and a few samples; writes the samples, the loss curves
(``loss.png``) and the weights to ``--out``.
"""

import argparse
import os
import sys
import time

import torch

from grader.text import t
from write import corpus, plot, student, training, verdict

SAMPLES, LENGTH = 3, 80
DEFAULT_PROMPT = "注意力"


def parser() -> argparse.ArgumentParser:
    d = training.Settings()
    p = argparse.ArgumentParser(
        prog="python -m write",
        description="训练一个用你自己的练习搭成的小 GPT，让它写字 / train a small GPT built from your own exercises, and let it write",
    )
    p.add_argument("folder", nargs="?", default="exercises", help="你的练习所在的文件夹 / the folder of your exercises (default: exercises)")
    p.add_argument("--steps", type=int, default=d.steps, help=f"训练步数 / training steps (default: {d.steps})")
    p.add_argument("--seed", type=int, default=d.seed, help=f"随机种子：同一个种子，同一台机器，同样的结果 / random seed: same seed, same machine, same result (default: {d.seed})")
    p.add_argument(
        "--dropout", type=float, default=d.dropout,
        help=f"训练时随机丢弃的比例，比如 0.2：模型背课文背得慢一些 / the dropout rate in training, e.g. 0.2: the model learns the text by heart more slowly (default: {d.dropout:g})",
    )  # fmt: skip
    p.add_argument("--prompt", default=DEFAULT_PROMPT, help=f"开头的几个字 / the first characters (default: {DEFAULT_PROMPT})")
    p.add_argument("--out", default="written", help="写到哪个文件夹 / the folder to write to (default: written)")
    return p


def error(zh: str, en: str, code: int = 2) -> int:
    print(f"python -m write: {zh}\n{en}", file=sys.stderr)
    return code


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("\n中断了 / interrupted", file=sys.stderr)
        return 130


def run(args) -> int:
    if args.steps < 1:
        return error("--steps 至少是 1", "--steps must be at least 1")
    if not 0 <= args.dropout < 1:
        return error("--dropout 要在 0 和 1 之间（可以是 0，不能是 1）", "--dropout must be at least 0 and less than 1")
    if not os.path.isdir(args.folder):
        return error(f"找不到文件夹 {args.folder}", f"no folder {args.folder}")
    text = corpus.load()
    vocab = corpus.Vocabulary(text)
    missing = vocab.unknown(args.prompt)
    if not args.prompt or missing:
        return error(
            f"--prompt 里有语料里没有的字：{missing or '（空）'}。用课文里出现过的字。",
            f"--prompt has characters the corpus does not: {missing or '(empty)'}. Use characters of the course's text.",
        )

    try:
        modules = student.load(args.folder)
    except student.NotReady as e:
        print(f"{e.problem.zh}\n{e.problem.en}", file=sys.stderr)
        return 1

    settings = training.Settings(steps=args.steps, seed=args.seed, dropout=args.dropout)
    held_out = round(len(text) * settings.val_share)
    print(
        f"训练 / training: {args.folder} 里你的 GPT / your GPT, n_embd={settings.n_embd}, n_head={settings.n_head}, "
        f"n_layer={settings.n_layer}, block_size={settings.block_size}, dropout={settings.dropout:g}; "
        f"课文 / the course's text: {len(text)} 字 / characters, {len(vocab)} 个不同的字 / distinct, "
        f"最后 {held_out} 个字留作验证、不训练 / the last {held_out} held out for validation, never trained on"
    )
    # One thread: the model is small enough that more barely help, more fight the
    # grader (running meanwhile) and your other programs for the cores, and with
    # one the result does not depend on how many cores the machine has.
    torch.set_num_threads(1)
    grading = verdict.Grading(args.folder)
    try:
        return _train_and_write(args, modules["ex7_gpt"].GPT, text, settings, grading)
    finally:
        grading.stop()


def _train_and_write(args, GPT, text, settings, grading) -> int:
    started = time.perf_counter()
    try:
        model, vocab, history = _train(GPT, text, settings, args.folder)
    except student.NotReady as e:
        print(f"{e.problem.zh}\n{e.problem.en}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - started
    print(
        f"损失 / loss: {history.before:.2f} → {history.after:.2f}"
        f"（训练的文字，训练前 → 保留的权重；{settings.steps} 步，{seconds:.0f} 秒 / the training text, before → the weights kept; "
        f"{settings.steps} steps, {seconds:.0f} s）"
    )
    print(f"验证损失 / validation loss: {history.val_before:.2f} → {history.val_after:.2f}（留出的文字，没训练过 / the held-out text, never trained on）")
    print(kept(history, settings.steps))
    advice = by_heart(history, settings.dropout)
    if advice:
        print(advice)
    if verdict.sees_the_future(model, len(vocab), settings.block_size):
        print(verdict.too_good(history.after))
    print(grading.line())

    try:
        samples = training.write(model, vocab, args.prompt, SAMPLES, LENGTH, settings.seed)
    except Exception as exc:  # noqa: BLE001 - the student's generate
        ex, line = student.where(exc, args.folder)
        p = student.failed(ex or "ex7_gpt", exc, line, ("写字", "generate"))
        print(f"{p.zh}\n{p.en}", file=sys.stderr)
        return 1
    print(f"从“{args.prompt}”开始写 / writing on from “{args.prompt}”:")
    for k, s in enumerate(samples, 1):
        print(f"  {k}. " + s.replace("\n", "\n     "))

    files = _save(args.out, model, vocab, text, settings, history, args.prompt, samples)
    print(f"写好了 / written: {', '.join(files)}")
    return 0


def kept(history, steps: int) -> str:
    """Which weights the model ends with: those of the lowest validation loss (training.Settings.keep_best)."""
    step = history.kept_step
    if step == steps:
        return "保留的权重 / weights kept: 最后一步的，验证损失在那里最低 / the last step's, where the validation loss was lowest"
    return (
        f"保留的权重 / weights kept: 第 {step} 步的，验证损失在那里最低；第 {steps} 步时它是 {history.val_last:.2f}"
        f" / step {step}'s, where the validation loss was lowest; at step {steps} it was {history.val_last:.2f}"
    )


def by_heart(history, dropout: float) -> str | None:
    """What it means when the validation loss turned back up, and what to try: --dropout, unless it is set."""
    best_step, best = history.val_best
    if history.val_last <= best + 0.1:
        return None
    said = t(
        f"验证损失从第 {best_step} 步以后不降反升：模型在背课文，背得越熟，没读过的文字就猜得越差。",
        f"The validation loss rose after step {best_step}: the model is learning its text by heart, and the better it knows it, the worse it guesses text it has not read.",
    )
    if dropout == 0:
        tried = t("试试 --dropout 0.2：背得慢一些，两条线靠得更近。", "Try --dropout 0.2: it learns by heart more slowly, and the two lines stay closer.")
    else:  # the advice it has already taken is not given again
        tried = t(
            f"用了 --dropout {dropout:g} 也一样。验证损失的最低点不会低多少：课文只有这么多，能学到的规律有限。",
            f"It does so even with --dropout {dropout:g}. The lowest validation loss will not be much lower: there is only so much to learn from so little text.",
        )
    shorter = t(
        f"保留的反正是第 {best_step} 步的权重：少训练几步（--steps）省时间。",
        f"The weights kept are step {best_step}'s anyway: fewer --steps save time.",
    )
    return str(t(said.zh + tried.zh + shorter.zh, f"{said.en} {tried.en} {shorter.en}"))


def _train(GPT, text, settings, folder):
    """Train with a progress bar that shows the loss; a mistake in the student's code becomes NotReady."""
    bar = _progress(settings.steps)
    try:
        return training.train(GPT, text, settings, on_step=bar.update, on_measure=bar.measured)
    except Exception as exc:  # noqa: BLE001 - the student's forward or backward
        ex, line = student.where(exc, folder)
        raise student.NotReady(student.failed(ex or "ex7_gpt", exc, line, ("训练", "training"))) from None
    finally:
        bar.close()


class _progress:
    """tqdm's bar with the loss beside it (the batch's, and the last measured on the held-out text);
    without tqdm, a line every tenth of the way."""

    def __init__(self, total: int):
        self.total = total
        self.val = None
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar = None
        else:
            self.bar = tqdm(total=total, desc="训练 / training", unit="步/step", dynamic_ncols=True)

    def measured(self, step: int, train_loss: float, val_loss: float) -> None:
        self.val = val_loss

    def update(self, step: int, loss: float) -> None:
        shown = f"loss {loss:.3f}" + ("" if self.val is None else f", val {self.val:.3f}")
        if self.bar is not None:
            self.bar.update(1)
            if step % 10 == 0 or step == self.total:
                self.bar.set_postfix_str(shown, refresh=False)
        elif step == self.total or step % max(1, self.total // 10) == 0:
            print(f"  {step}/{self.total}  {shown}", flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _save(out, model, vocab, text, settings, history, prompt, samples) -> list[str]:
    os.makedirs(out, exist_ok=True)
    paths = [os.path.join(out, name) for name in ("samples.txt", "loss.png", "model.pt")]
    head = (
        f"# n_embd={settings.n_embd} n_head={settings.n_head} n_layer={settings.n_layer} "
        f"block_size={settings.block_size} batch_size={settings.batch_size} steps={settings.steps} seed={settings.seed} "
        f"dropout={settings.dropout:g}\n"
        f"# 损失 / loss: {history.before:.4f} -> {history.after:.4f}\n"
        f"# 验证损失 / validation loss: {history.val_before:.4f} -> {history.val_after:.4f}\n"
        f"# 保留的权重 / weights kept: step {history.kept_step}; validation loss at step {settings.steps}: {history.val_last:.4f}\n"
        f"# 开头 / prompt: {prompt}\n"
    )
    with open(paths[0], "w", encoding="utf-8", newline="\n") as f:
        f.write(head + "".join(f"\n{s}\n" for s in samples))
    torch.save(training.checkpoint(model, vocab, text, settings, history), paths[2])
    try:
        plot.save(paths[1], history)
    except ImportError:
        print(t("没有画 loss.png：没装 matplotlib（tox -e write 会装上）。", "No loss.png: matplotlib is not installed (tox -e write installs it)."), file=sys.stderr)
        paths.remove(paths[1])
    return paths
