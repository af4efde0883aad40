"""loss.png: the loss along the training, drawn by matplotlib and labelled in
Chinese and English.

matplotlib's own font, DejaVu Sans, has no Chinese. Where a Chinese font is
installed (one of CJK_FONTS: Debian and Ubuntu's fonts-wqy-microhei, or the
one that comes with macOS or Windows), matplotlib draws the Latin text in
DejaVu Sans and falls back to it glyph by glyph, as the docs' figures do
(docs/_ext/figure_gen.py, which the student edition does not ship). Where
none is, the labels are English only, rather than rows of empty boxes.
matplotlib is imported only here, when the picture is drawn: ``tox -e write``
installs it, and without it ``python -m write`` writes everything else.
"""

import re

# Tried in order: Linux's, then macOS's, then Windows'.
CJK_FONTS = (
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC",
    "Droid Sans Fallback", "PingFang SC", "Hiragino Sans GB", "Heiti SC", "Microsoft YaHei", "SimHei",
)  # fmt: skip
# Their files' names, for a font installed after matplotlib cached its list of fonts.
_CJK_FILES = re.compile(r"wqy|notosans.*(cjk|sc)|sourcehansans|droidsansfallback|pingfang|hiragino|heiti|msyh|simhei")

STEP_COLOUR, TRAIN_COLOUR, VAL_COLOUR, KEPT_COLOUR = "#a9c6ea", "#1f5aaa", "#d6601a", "#444444"  # as docs/figures/gpt_loss.py


def cjk_font(names=CJK_FONTS) -> str | None:
    """The first of ``names`` that matplotlib can draw with, or None."""
    from matplotlib import font_manager

    def known():
        installed = {f.name for f in font_manager.fontManager.ttflist}
        return next((name for name in names if name in installed), None)

    if known() is None:
        for path in font_manager.findSystemFonts():
            if _CJK_FILES.search(path.lower().replace("-", "").replace("_", "")):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # a file FreeType cannot read
                    pass
    return known()


def figure(history, font: str | None):
    """The figure: every batch's loss (light), the loss measured on the training text (blue) and on the
    held-out text (orange), and the step whose weights were kept. Labels in Chinese and English with
    ``font``, in English only without."""
    import matplotlib
    from matplotlib.figure import Figure

    def say(zh: str, en: str) -> str:
        return f"{zh} / {en}" if font else en

    # Each text takes its fonts from rcParams when it is made: DejaVu Sans, then the Chinese font for what it lacks.
    with matplotlib.rc_context({"font.family": ["DejaVu Sans", font] if font else ["DejaVu Sans"], "axes.unicode_minus": False}):
        fig = Figure(figsize=(8, 5.5), dpi=100)
        ax = fig.add_subplot()
        ax.plot(range(1, len(history.step_losses) + 1), history.step_losses, color=STEP_COLOUR, lw=0.8, label=say("每一批", "each batch"))
        ax.plot(history.eval_steps, history.eval_losses, color=TRAIN_COLOUR, lw=2, label=say("训练的文字", "training text"))
        ax.plot(history.eval_steps, history.val_losses, color=VAL_COLOUR, lw=2, label=say("留出的文字，没训练过", "held-out text, never trained on"))
        step = history.kept_step
        ax.axvline(step, color=KEPT_COLOUR, ls=":", lw=1)
        ax.plot([step], [history.val_after], "o", color=KEPT_COLOUR, label=say(f"保留的权重：第 {step} 步", f"weights kept: step {step}"))
        ax.set_xlim(0, max(history.eval_steps[-1], 1))
        ax.set_ylim(0, None)
        ax.set_xlabel(say("训练步数", "training step"))
        ax.set_ylabel(say("交叉熵损失", "cross-entropy loss"))
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)  # under the axes: no curve goes there
        title = "Blue: loss on the text it trains on. Orange: on held-out text it never trains on.\nWhere orange turns up while blue still falls, the model is learning its text by heart."
        if font:
            title = "蓝线：训练的文字上的损失；橙线：留出的、从没训练过的文字上的损失。\n蓝线还在降、橙线却回升：模型在背课文。\n" + title
        ax.set_title(title, fontsize=9.5, loc="left")
        fig.tight_layout()
    return fig


def save(path: str, history, fonts=CJK_FONTS) -> str | None:
    """Draw ``history`` into the PNG ``path``; returns the Chinese font it used (None: labels in English
    only). ImportError without matplotlib."""
    font = cjk_font(fonts)
    figure(history, font).savefig(path)
    return font
