"""ex7: the loss of the GPT trained by tox -e write's code (docs/figures/gpt_trained.py), step by step.

The narrow variant, for phones, is 4 inches wide with no text under 9.5
points (11 CSS px or more on a 390 px phone, docs/_ext/figure_gen.py).
"""

import matplotlib.pyplot as plt

from figures import gpt_trained


def alt() -> dict:
    _, _, _, settings, history = gpt_trained.trained()
    every = history.eval_steps[1] - history.eval_steps[0]
    first, last = history.eval_losses[0], history.eval_losses[-1]
    best_step, best = history.val_best
    return {
        "zh": f"折线图：训练 {settings.steps} 步中的损失，横轴是训练步数，纵轴是损失。浅色细线是每一批的损失，上下抖动；"
        f"蓝色粗线是每隔 {every} 步在训练的文字上量出的损失，从 {first:.2f} 降到 {last:.2f}；"
        f"橙色粗线是在留出的文字上量出的，第 {best_step} 步降到最低的 {best:.2f}，之后回升到 {history.val_after:.2f}。"
        f"虚线标在第 {gpt_trained.EARLY_STEPS} 步。",
        "en": f"A line chart: the loss over {settings.steps} training steps, steps across, loss up. A thin light line, "
        f"each batch's loss, jitters; a thick blue line, the loss measured on the training text every {every} steps, "
        f"falls from {first:.2f} to {last:.2f}; a thick orange line, measured on the held-out text, falls to its lowest, "
        f"{best:.2f}, at step {best_step} and climbs back to {history.val_after:.2f}. A dotted line marks step "
        f"{gpt_trained.EARLY_STEPS}.",
    }


def draw(narrow: bool = False):
    _, _, _, settings, history = gpt_trained.trained()
    gpt_trained.losses()  # the ends of the curve are measured again now
    gpt_trained.early()  # and its start trained again
    small = 9.5 if narrow else 9  # the legend and the note
    fig, ax = plt.subplots(figsize=(4.0, 3.4) if narrow else (7.2, 3.6))
    steps = range(1, len(history.step_losses) + 1)
    ax.plot(steps, history.step_losses, color="#a9c6ea", lw=0.8, label="每一批 / each batch")
    ax.plot(history.eval_steps, history.eval_losses, color="#1f5aaa", lw=2, label="训练的文字 / training text")
    ax.plot(history.eval_steps, history.val_losses, color="#d6601a", lw=2, label="留出的文字 / held-out text")
    ax.axvline(gpt_trained.EARLY_STEPS, color="#888888", ls=":", lw=1)
    ax.annotate(f"{gpt_trained.EARLY_STEPS} 步 / steps", (gpt_trained.EARLY_STEPS, history.eval_losses[0] * 0.9),
                xytext=(8, 0), textcoords="offset points", fontsize=small, color="#555555")  # fmt: skip
    ax.set_xlim(0, settings.steps)
    ax.set_ylim(0, None)
    ax.set_xlabel("训练步数 / training step")
    ax.set_ylabel("损失 / loss")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=small if narrow else None)
    fig.tight_layout()
    return fig
