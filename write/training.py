"""Training the student's GPT on the corpus, and sampling from it.

The last tenth of the text is held out: the model trains on the first nine
tenths only, and its loss is measured on both along the way. On the text it
trains on the loss keeps falling; on the held-out tenth it falls as long as
the model learns what holds for any Chinese of this course, and stops falling
(or rises) once it learns the training text by heart. So the model ends with
the weights it had where the held-out loss was lowest (``keep_best``): the
curves still show the whole training, the way the two losses part, but what
is kept (and written with, and saved) is the model that guesses new text
best. ``dropout`` (the ``--dropout`` option) slows the learning by heart.

Everything random comes from the seed: the model's first weights
(``torch.manual_seed``), the batches (a generator of their own), the dropout
and the samples. The loss is measured on the same fixed batches whatever the
seed, so two runs can be compared.
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
    dropout: float = 0.0  # GPT's dropout rate while training (none while measuring or writing)
    keep_best: bool = True  # end with the weights of the lowest held-out loss measured, not the last ones
    val_share: float = 0.1  # the end of the text held out, never trained on
    eval_batches: int = 8  # batches in each measurement of the loss
    evals: int = 30  # measurements along the way, for the curve (at most one per 10 steps)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class History:
    """The loss of every training batch, and the loss measured along the way:
    on the text trained on (``eval_losses``) and on the held-out text (``val_losses``).
    ``kept`` is the measurement whose weights the model ended with (-1: the last);
    ``after`` and ``val_after`` are that model's losses."""

    step_losses: list = field(default_factory=list)  # step 1, 2, ...
    eval_steps: list = field(default_factory=list)
    eval_losses: list = field(default_factory=list)  # the training text
    val_losses: list = field(default_factory=list)  # the held-out text
    kept: int = -1  # an index into the three lists above

    @property
    def before(self) -> float:
        return self.eval_losses[0]

    @property
    def after(self) -> float:
        return self.eval_losses[self.kept]

    @property
    def val_before(self) -> float:
        return self.val_losses[0]

    @property
    def val_after(self) -> float:
        return self.val_losses[self.kept]

    @property
    def kept_step(self) -> int:
        return self.eval_steps[self.kept]

    @property
    def val_last(self) -> float:
        """The held-out loss at the last step, whatever the weights kept."""
        return self.val_losses[-1]

    @property
    def val_best(self) -> tuple[int, float]:
        """(step, loss) where the held-out loss was lowest."""
        k = min(range(len(self.val_losses)), key=self.val_losses.__getitem__)
        return self.eval_steps[k], self.val_losses[k]


def split(data: torch.Tensor, settings: Settings) -> tuple[torch.Tensor, torch.Tensor]:
    """(train, val): the first part of the text and its last ``val_share``, held out."""
    n = len(data) - round(len(data) * settings.val_share)
    return data[:n], data[n:]


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
    return GPT(len(vocab), settings.n_embd, settings.n_head, settings.n_layer, settings.block_size, settings.dropout)


def train(GPT, text: str, settings: Settings, on_step=None, on_measure=None):
    """Train a new ``GPT`` on the first part of ``text``; returns (model, vocab, history), the model
    with the weights of ``history.kept`` (with ``keep_best``, those of the lowest held-out loss).
    ``on_step(step, loss)`` is called after every step, ``on_measure(step, train_loss, val_loss)``
    after every measurement. The vocabulary is the whole text's, the held-out part's included."""
    vocab = Vocabulary(text)
    data = torch.tensor(vocab.encode(text), dtype=torch.long)
    train_data, val_data = split(data, settings)
    for part in (train_data, val_data):
        if len(part) <= settings.block_size:
            raise ValueError(f"a text of {len(text)} characters is too short to hold out a part of more than block_size")
    model = new_model(GPT, vocab, settings)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    generator = torch.Generator().manual_seed(settings.seed)
    history = History()
    evals = max(1, min(settings.evals, settings.steps // 10))  # a short run is not all measuring
    marks = {round(i * settings.steps / evals) for i in range(evals + 1)}

    best = {}  # a copy of the weights of the lowest held-out loss so far

    def mark(step):
        history.eval_steps.append(step)
        history.eval_losses.append(measure(model, train_data, settings))
        history.val_losses.append(measure(model, val_data, settings))
        k = len(history.val_losses) - 1
        if not settings.keep_best or k == 0 or history.val_losses[k] < history.val_losses[history.kept]:
            history.kept = k
            if settings.keep_best:
                best.update((name, w.detach().clone()) for name, w in model.state_dict().items())
        if on_measure:
            on_measure(step, history.eval_losses[-1], history.val_losses[-1])

    mark(0)
    model.train()
    for step in range(1, settings.steps + 1):
        x, y = batch(train_data, settings, generator)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        history.step_losses.append(loss.item())
        if step in marks:
            mark(step)
        if on_step:
            on_step(step, history.step_losses[-1])
    if history.kept != len(history.eval_steps) - 1:
        model.load_state_dict(best)
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
