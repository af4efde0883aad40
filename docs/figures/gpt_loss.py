"""ex7: the loss of the GPT trained by tox -e write's code (docs/figures/gpt_trained.py), step by step."""
import matplotlib.pyplot as plt

from figures import gpt_trained


def draw():
    _, _, _, settings, history = gpt_trained.trained()
    gpt_trained.losses()  # the ends of the curve are measured again now
    gpt_trained.early()  # and its start trained again
    fig, ax = plt.subplots(figsize=(7.2, 3.6))
    steps = range(1, len(history.step_losses) + 1)
    ax.plot(steps, history.step_losses, color="#a9c6ea", lw=0.8, label="每一批 / each batch")
    ax.plot(history.eval_steps, history.eval_losses, color="#1f5aaa", lw=2, label="训练的文字 / training text")
    ax.plot(history.eval_steps, history.val_losses, color="#d6601a", lw=2, label="留出的文字 / held-out text")
    ax.axvline(gpt_trained.EARLY_STEPS, color="#888888", ls=":", lw=1)
    ax.annotate(f"{gpt_trained.EARLY_STEPS} 步 / steps", (gpt_trained.EARLY_STEPS, history.eval_losses[0] * 0.9),
                xytext=(8, 0), textcoords="offset points", fontsize=9, color="#555555")  # fmt: skip
    ax.set_xlim(0, settings.steps)
    ax.set_ylim(0, None)
    ax.set_xlabel("训练步数 / training step")
    ax.set_ylabel("损失 / loss")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig
