"""Training the student's GPT on the corpus, and sampling from it.

Everything random comes from the seed: the model's first weights
(``torch.manual_seed``), the batches (a generator of their own) and the
samples. The loss before and after is measured on the same fixed batches
whatever the seed, so two runs can be compared.
"""
from dataclasses import asdict, dataclass, field

import torch

from write.corpus import Vocabulary

EVAL_SEED = 0  # the evaluation batches do not depend on --seed


@dataclass(frozen=True)
class Settings:
    n_embd: int = 64
    n_head: int = 4
    n_layer: int = 3
    block_size: int = 32
    batch_size: int = 32
    steps: int = 1500
    learning_rate: float = 3e-3
    seed: int = 1
    eval_batches: int = 8  # batches in each measurement of the loss
    evals: int = 30  # measurements along the way, for the curve (at most one per 10 steps)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class History:
    """The loss of every training batch, and the measured loss along the way."""

    step_losses: list = field(default_factory=list)  # step 1, 2, ...
    eval_steps: list = field(default_factory=list)
    eval_losses: list = field(default_factory=list)

    @property
    def before(self) -> float:
        return self.eval_losses[0]

    @property
    def after(self) -> float:
        return self.eval_losses[-1]


def batch(data: torch.Tensor, settings: Settings, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Random pieces of the text: inputs x and targets y, the same pieces one character on. (B, T) each."""
    T = settings.block_size
    starts = torch.randint(len(data) - T, (settings.batch_size,), generator=generator)  # (B,)
    offsets = starts[:, None] + torch.arange(T)  # (B, T)
    return data[offsets], data[offsets + 1]


@torch.no_grad()
def measure(model, data: torch.Tensor, settings: Settings) -> float:
    """The mean loss on the same ``eval_batches`` batches every time, in eval mode."""
    generator = torch.Generator().manual_seed(EVAL_SEED)
    was_training = model.training
    model.eval()
    try:
        losses = [model(*batch(data, settings, generator))[1].item() for _ in range(settings.eval_batches)]
    finally:
        model.train(was_training)
    return sum(losses) / len(losses)


def new_model(GPT, vocab: Vocabulary, settings: Settings):
    """The student's GPT, with the first weights the seed gives."""
    torch.manual_seed(settings.seed)
    return GPT(len(vocab), settings.n_embd, settings.n_head, settings.n_layer, settings.block_size)


def train(GPT, text: str, settings: Settings, on_step=None):
    """Train a new ``GPT`` on ``text``; returns (model, vocab, history).
    ``on_step(step, loss)`` is called after every step."""
    vocab = Vocabulary(text)
    data = torch.tensor(vocab.encode(text), dtype=torch.long)
    model = new_model(GPT, vocab, settings)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    generator = torch.Generator().manual_seed(settings.seed)
    history = History()
    evals = max(1, min(settings.evals, settings.steps // 10))  # a short run is not all measuring
    marks = {round(i * settings.steps / evals) for i in range(evals + 1)}

    def mark(step):
        history.eval_steps.append(step)
        history.eval_losses.append(measure(model, data, settings))

    mark(0)
    model.train()
    for step in range(1, settings.steps + 1):
        x, y = batch(data, settings, generator)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        history.step_losses.append(loss.item())
        if step in marks:
            mark(step)
        if on_step:
            on_step(step, history.step_losses[-1])
    return model, vocab, history


@torch.no_grad()
def write(model, vocab: Vocabulary, prompt: str, samples: int, length: int, seed: int) -> list[str]:
    """``samples`` texts of ``length`` new characters after ``prompt``, drawn with the student's generate."""
    torch.manual_seed(seed)
    model.eval()
    idx = torch.tensor([vocab.encode(prompt)] * samples, dtype=torch.long)  # (samples, len(prompt))
    return [vocab.decode(row) for row in model.generate(idx, length).tolist()]


def checkpoint(model, vocab: Vocabulary, text: str, settings: Settings, history: History) -> dict:
    """What ``model.pt`` holds: enough to build the model again and say how it was trained."""
    return {
        "settings": settings.as_dict(),
        "vocab": vocab.chars,
        "text": text,
        "history": vars(history),
        "state_dict": model.state_dict(),
    }


def from_checkpoint(saved: dict, GPT):
    """(model, vocab, text, settings, history) from ``checkpoint``'s dict, the weights loaded into ``GPT``."""
    settings = Settings(**saved["settings"])
    vocab = Vocabulary(saved["vocab"])
    model = new_model(GPT, vocab, settings)
    model.load_state_dict(saved["state_dict"])
    return model.eval(), vocab, saved["text"], settings, History(**saved["history"])

