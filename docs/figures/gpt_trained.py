"""A GPT trained by ``tox -e write``'s own code on the reference solutions, shipped as weights.

Training takes minutes, too long for every docs build, so the weights are
made once, by

    python docs/figures/gpt_trained.py     # retrains and rewrites docs/figures/gpt_trained.pt

which runs ``write.training`` with the command's default settings (its seed,
one thread, no dropout, the last tenth of the text held out) on ``solutions/``
and the corpus of ``write/corpus.txt``, and saves what ``tox -e write`` saves
as ``model.pt``: the weights, the settings, the text and the loss along the
way, on the training text and on the held-out tenth. One setting differs
(SETTINGS): these are the weights of the last step, where ``tox -e write``
keeps those of the lowest held-out loss; the same training, the same curves,
but the ex7 page shows what a model that learned its text by heart writes. It takes one and a half
to three minutes (one thread; longer on a busy machine). After the docs'
pages change, the corpus and the weights are made again by

    python -m write.corpus && python docs/figures/gpt_trained.py

The build loads the weights into the solutions' GPT and computes every
number, sample and weight shown from them; the start of the training is
trained again at build time and must agree with the saved loss.
tests/student/test_write.py checks that the weights still load and reach the losses
they were saved with, and that they were trained on corpus.txt as it is.
"""

import contextlib
import functools
import sys
import time
from pathlib import Path
from typing import NamedTuple

import torch

ROOT = Path(__file__).resolve().parents[2]
for _path in (ROOT, ROOT / "solutions"):  # as docs/conf.py puts them, when run as a script
    if str(_path) not in sys.path:
        sys.path.append(str(_path))

from ex2_scores import attention_scores  # noqa: E402 - after the sys.path line above
from ex3_scaling import scale_scores  # noqa: E402 - after the sys.path line above
from ex4_masking import causal_weights  # noqa: E402 - after the sys.path line above
from ex7_gpt import GPT  # noqa: E402 - after the sys.path line above

from write import corpus, training  # noqa: E402 - after the sys.path line above
from write.command import DEFAULT_PROMPT, LENGTH, SAMPLES  # noqa: E402 - after the sys.path line above

PATH = Path(__file__).with_name("gpt_trained.pt")
SETTINGS = training.Settings(keep_best=False)  # the command's, but for the weights kept: the last ones
EARLY_STEPS = 50  # "after a few steps": trained again at every build
SENTENCE = "每个位置只能参考它自己和它前面的字"  # a sentence of the course (ex4), read by the trained heads


@contextlib.contextmanager
def one_thread():
    """As the command trains: one thread, which a loaded machine does not slow down many times over."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@functools.lru_cache
def trained():
    """(model, vocab, text, settings, history) of the shipped weights, in eval mode."""
    saved = torch.load(PATH, weights_only=True)
    with torch.random.fork_rng():  # building the model seeds torch: the pages' own random numbers stay theirs
        return training.from_checkpoint(saved, GPT)


def data() -> tuple[torch.Tensor, torch.Tensor]:
    """(train, val): the text trained on and the held-out last part, as token ids."""
    model, vocab, text, settings, history = trained()
    return training.split(torch.tensor(vocab.encode(text), dtype=torch.long), settings)


class Losses(NamedTuple):
    before: float  # the untrained model, on the training text
    after: float  # the trained model, on the training text
    val_before: float  # the same two on the held-out text
    val_after: float


@functools.lru_cache
def losses() -> Losses:
    """The loss of the untrained model (the seed's first weights) and of the trained one, on the training
    text and on the held-out text, measured now. Each must be the one saved with the weights: they are
    the ends of the curves."""
    model, vocab, text, settings, history = trained()
    train_data, val_data = data()
    with one_thread(), torch.random.fork_rng():
        untrained = training.new_model(GPT, vocab, settings)
        now = Losses(*(training.measure(m, d, settings) for d in (train_data, val_data) for m in (untrained, model)))
    saved = Losses(history.before, history.after, history.val_before, history.val_after)
    for name, a, b in zip(Losses._fields, now, saved):
        if abs(a - b) > 1e-3:
            raise AssertionError(f"the loss {name} is {a:.4f} now, {b:.4f} when the weights were saved: retrain them")
    return now


@functools.lru_cache
def early():
    """The model after EARLY_STEPS steps, trained now by the same code, and the loss of each step;
    the losses must be those the shipped training saw (the same seed gives the same batches)."""
    model, vocab, text, settings, history = trained()
    short = training.Settings(**{**settings.as_dict(), "steps": EARLY_STEPS, "evals": 1})  # the step losses are what is compared
    with one_thread(), torch.random.fork_rng():
        model_early, _, history_early = training.train(GPT, text, short)
    drift = max(abs(a - b) for a, b in zip(history_early.step_losses, history.step_losses))
    if drift > 0.05:
        raise AssertionError(f"training again gives step losses {drift:.3f} away from the saved ones: retrain the weights")
    return model_early.eval(), history_early


def samples(model, seed: int) -> list[str]:
    """What ``tox -e write`` prints: SAMPLES texts of LENGTH characters after its default prompt."""
    _, vocab, _, settings, _ = trained()
    with one_thread(), torch.random.fork_rng():
        return training.write(model, vocab, DEFAULT_PROMPT, SAMPLES, LENGTH, seed)


def attention(layer: int) -> torch.Tensor:
    """(n_head, T, T): the weights each head of block ``layer`` gives while reading SENTENCE,
    computed from its queries and keys with ex2-ex4 and checked against the head's output."""
    model, vocab, text, settings, _ = trained()
    if SENTENCE not in text:
        raise AssertionError(f"{SENTENCE} is not a sentence of the text the model learned")
    seen = {}
    heads = model.blocks[layer].sa.heads
    hooks = [h.register_forward_hook(lambda mod, args, out, k=k: seen.__setitem__(k, (args[0], out))) for k, h in enumerate(heads)]
    try:
        with torch.no_grad(), one_thread():
            model(torch.tensor([vocab.encode(SENTENCE)]))
            out = []
            for k, head in enumerate(heads):
                x, y = seen[k]  # the head's input (1, T, n_embd) and output (1, T, hs)
                q, key, v = head.query(x), head.key(x), head.value(x)
                wei = causal_weights(scale_scores(attention_scores(q, key), q.shape[-1]))  # (1, T, T)
                if not torch.allclose(wei @ v, y, atol=1e-5):
                    raise AssertionError("these weights do not give the head's output")
                out.append(wei[0])
    finally:
        for h in hooks:
            h.remove()
    return torch.stack(out)


def copied_share(samples: list[str], n: int = 4) -> float:
    """The share of the written pieces of ``n`` characters (after the prompt) that the text holds as they are."""
    text = trained()[2]
    pieces = [s[i : i + n] for s in samples for i in range(len(DEFAULT_PROMPT), len(s) - n + 1)]
    return sum(p in text for p in pieces) / len(pieces)


def main() -> None:
    torch.set_num_threads(1)
    text = corpus.load()
    settings = SETTINGS
    started = time.perf_counter()
    model, vocab, history = training.train(GPT, text, settings)
    torch.save(training.checkpoint(model, vocab, text, settings, history), PATH)
    print(
        f"wrote {PATH.relative_to(ROOT)} in {time.perf_counter() - started:.0f} s: loss {history.before:.3f} -> "
        f"{history.after:.3f}, held out {history.val_before:.3f} -> {history.val_after:.3f}, {PATH.stat().st_size:,} bytes"
    )


if __name__ == "__main__":
    main()
