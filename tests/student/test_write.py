"""``python -m write``: the student's own GPT, trained on the course's own
text, writes. Run as a student runs it (a process of its own), with few
steps: the loss falls on the training text and on the held-out text, the
same seed writes the same, unfinished or wrong code is named in both
languages, and it works in a student release. The corpus is Chinese prose
without a Latin letter, and the model never trains on its held-out tenth.
The model kept is the one of the lowest held-out loss (checked with tiny
models, in this process), and loss.png is labelled in Chinese and English
where a Chinese font is installed, in English where none is."""

import dataclasses
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import EXERCISES, ROOT, SOLUTIONS, ctrl_c_as_in_a_terminal, python_m_grader, run_cli

from write import command, corpus, plot, training

STEPS = "20"
WRONG = Path(ROOT) / "tests" / "catalogue" / "wrong"
LOSS = re.compile(r"^损失 / loss: (\d+\.\d+) → (\d+\.\d+)", re.M)
VAL_LOSS = re.compile(r"^验证损失 / validation loss: (\d+\.\d+) → (\d+\.\d+)", re.M)


def run_write(*args, cwd: str = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the folders trained on stay as they are
    return python_m_grader(args, cwd=cwd, env=env, module="write")  # forked from the session's warm interpreter


def submission(folder: Path, replace: dict) -> str:
    """The solutions (every exercise the model is built from), with some files replaced."""
    shutil.copytree(SOLUTIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for ex, source in replace.items():
        (folder / f"{ex}.py").write_text(source, encoding="utf-8")
    return str(folder)


def samples(out: Path) -> str:
    return (out / "samples.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("write") / "written"
    proc = run_write(SOLUTIONS, "--steps", STEPS, "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, out


def test_trains_the_solutions_and_the_loss_falls(solved):
    proc, out = solved
    before, after = map(float, LOSS.search(proc.stdout).groups())
    assert before > 6 and after < before - 1, (before, after)
    val_before, val_after = map(float, VAL_LOSS.search(proc.stdout).groups())  # the held-out text's, printed too
    assert abs(val_before - before) < 0.5 and val_after < val_before - 0.5, (val_before, val_after)
    assert "held out for validation" in proc.stdout and "留作验证" in proc.stdout
    assert "保留的权重 / weights kept: " in proc.stdout and "validation loss was lowest" in proc.stdout
    kept = re.search(r"^# 保留的权重 / weights kept: step (\d+);", samples(out), re.M)
    saved = torch.load(out / "model.pt", weights_only=True)["history"]
    assert kept and int(kept.group(1)) == saved["eval_steps"][saved["kept"]]  # what it wrote with is what it saved
    assert "评分 / grader: " in proc.stdout and "丢分" not in proc.stdout, proc.stdout  # the solutions lose nothing
    assert "好得不真实" not in proc.stdout and "sees the future" not in proc.stdout
    written = [line for line in proc.stdout.splitlines() if re.match(r"  \d\. 注意力", line)]
    assert len(written) == 3
    assert str(out) in proc.stdout  # it says where it wrote
    assert {p.name for p in out.iterdir()} == {"samples.txt", "loss.png", "model.pt"}
    assert "训练 / training" in proc.stderr and "loss " in proc.stderr  # the progress bar, with the loss
    assert "Traceback" not in proc.stdout + proc.stderr


def test_the_same_seed_writes_the_same(solved, tmp_path):
    _, out = solved
    again = run_write(SOLUTIONS, "--steps", STEPS, "--out", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert samples(tmp_path / "again") == samples(out)
    other = run_write(SOLUTIONS, "--steps", STEPS, "--seed", "2", "--prompt", "因果", "--out", str(tmp_path / "other"))
    assert other.returncode == 0, other.stderr
    assert samples(tmp_path / "other") != samples(out)
    assert "\n因果" in samples(tmp_path / "other")


def test_the_loss_curve_is_a_png(solved):
    from matplotlib.image import imread

    data = (solved[1] / "loss.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(solved[1] / "loss.png")[..., :3]  # (H, W, 3), floats in [0, 1]
    assert pixels.shape == (550, 800, 3)
    for colour in (plot.TRAIN_COLOUR, plot.VAL_COLOUR):  # both measured curves are drawn
        rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
        assert (np.abs(pixels - rgb).max(axis=-1) < 0.02).sum() > 50, colour


def _history() -> training.History:
    """A training whose held-out loss falls to step 200, then rises: the weights of step 200 kept."""
    return training.History(
        step_losses=[6.0 - 0.01 * k for k in range(400)], eval_steps=[0, 100, 200, 300, 400],
        eval_losses=[6.9, 5.0, 4.0, 3.0, 2.0], val_losses=[6.9, 5.2, 4.6, 5.5, 6.8], kept=2,
    )  # fmt: skip


def _texts(fig) -> list[str]:
    ax = fig.axes[0]
    return [ax.get_title("left"), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.get_legend().get_texts())]


CJK = re.compile(r"[\u3400-\u9fff]")


def test_the_loss_curve_is_labelled_in_chinese_and_english(tmp_path):
    """With a Chinese font every label is in both languages, the title says what the two curves are,
    and nothing is drawn as an empty box (matplotlib warns of each glyph its fonts lack)."""
    import warnings

    from matplotlib import font_manager

    if not any(plot._CJK_FILES.search(p.lower().replace("-", "").replace("_", "")) for p in font_manager.findSystemFonts()):
        pytest.skip("no Chinese font installed (Debian/Ubuntu: fonts-wqy-microhei)")
    font = plot.cjk_font()
    assert font in plot.CJK_FONTS
    texts = _texts(plot.figure(_history(), font))
    assert all(CJK.search(t) and re.search("[a-z]{4}", t) for t in texts), texts
    title = texts[0]
    assert "训练的文字" in title and "held-out" in title and "背课文" in title and "by heart" in title
    assert any("第 200 步" in t and "step 200" in t for t in texts)  # the weights kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font(s)"
        assert plot.save(str(tmp_path / "loss.png"), _history()) == font
    assert (tmp_path / "loss.png").stat().st_size > 10_000


@pytest.mark.parametrize("fonts", [(), ("No Such Font", "Nor This One")])
def test_without_a_chinese_font_the_loss_curve_is_labelled_in_english(tmp_path, fonts):
    import warnings

    assert plot.cjk_font(fonts) is None
    texts = _texts(plot.figure(_history(), None))
    assert not [t for t in texts if CJK.search(t)] and "held-out" in texts[0] and "step 200" in " ".join(texts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plot.save(str(tmp_path / "loss.png"), _history(), fonts=fonts) is None
    assert (tmp_path / "loss.png").read_bytes()[:4] == b"\x89PNG"


def test_dropout_reaches_the_model_and_is_saved(tmp_path):
    proc = run_write(SOLUTIONS, "--steps", "3", "--dropout", "0.2", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "dropout=0.2" in proc.stdout and "dropout=0.2" in samples(tmp_path / "out")
    assert torch.load(tmp_path / "out" / "model.pt", weights_only=True)["settings"]["dropout"] == 0.2
    refused = run_write(SOLUTIONS, "--dropout", "1", "--out", str(tmp_path / "no"))
    assert refused.returncode == 2 and "--dropout" in refused.stderr and not (tmp_path / "no").exists()


class Bigram(torch.nn.Module):
    """A model with GPT's signature that learns which character follows which: nothing else to learn."""

    def __init__(self, vocab_size, n_embd, n_head, n_layer, block_size, dropout=0.0):
        super().__init__()
        self.table = torch.nn.Embedding(vocab_size, vocab_size)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, idx, targets=None):
        logits = self.dropout(self.table(idx))  # (B, T, V)
        loss = None if targets is None else torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss


def _measured(model, text, settings) -> tuple[float, float]:
    """(training, held-out) loss of ``model``, measured now as training measures it."""
    vocab = corpus.Vocabulary(text)
    parts = training.split(torch.tensor(vocab.encode(text), dtype=torch.long), settings)
    return tuple(training.measure(model, part, settings) for part in parts)


def test_the_weights_kept_are_those_of_the_lowest_held_out_loss():
    """After a at every tenth a is c in the training text, in the held-out tenth at every tenth b: learning
    the training text ever better, the model guesses the held-out text better, then worse."""
    text = ("ab" * 9 + "ac") * 45 + ("ac" * 9 + "ab") * 5
    settings = training.Settings(n_embd=4, n_head=1, n_layer=1, block_size=8, batch_size=16, steps=200, learning_rate=0.1, eval_batches=2, evals=10)
    model, _, history = training.train(Bigram, text, settings)
    lowest = min(history.val_losses)
    assert history.val_last > lowest + 0.05 and history.kept_step < settings.steps  # it turned back up
    assert history.val_after == lowest == history.val_losses[history.kept]
    assert _measured(model, text, settings) == pytest.approx((history.after, history.val_after), abs=1e-6)
    last, _, everything = training.train(Bigram, text, dataclasses.replace(settings, keep_best=False))
    assert everything.val_losses == history.val_losses and everything.kept_step == settings.steps  # the same training
    assert _measured(last, text, settings) == pytest.approx((everything.after, history.val_last), abs=1e-6)


def test_when_the_held_out_loss_only_rises_the_first_weights_are_kept():
    """The held-out tenth is all a: the more the model learns that b follows a, the worse it guesses it."""
    text = "ab" * 450 + "a" * 100
    settings = training.Settings(n_embd=4, n_head=1, n_layer=1, block_size=8, batch_size=16, steps=50, learning_rate=0.1, eval_batches=2, evals=5)
    model, vocab, history = training.train(Bigram, text, settings)
    assert history.kept_step == 0 and history.val_last > history.val_before + 1
    untrained = training.new_model(Bigram, vocab, settings).state_dict()
    assert all(torch.equal(w, untrained[name]) for name, w in model.state_dict().items())
    assert history.after == history.before and "第 0 步" in command.kept(history, settings.steps)


@pytest.mark.parametrize("dropout", [0.2, 0.5])
def test_the_dropout_advice_is_not_given_when_dropout_is_set(dropout):
    said = command.by_heart(_history(), dropout)
    assert "第 200 步以后不降反升" in said and "rose after step 200" in said
    assert "试试 --dropout" not in said and "Try --dropout" not in said
    assert f"--dropout {dropout:g} 也一样" in said and f"even with --dropout {dropout:g}" in said
    without = command.by_heart(_history(), 0.0)
    assert "试试 --dropout 0.2" in without and "Try --dropout 0.2" in without
    flat = dataclasses.replace(_history(), val_losses=[6.9, 5.2, 4.6, 4.65, 4.62])  # not rising: nothing to say
    assert command.by_heart(flat, 0.0) is None and command.by_heart(flat, dropout) is None


def test_the_held_out_tenth_is_never_trained_on():
    """The last tenth of "abab...ab" + "cc...c" is all c: a model trained on it would learn that c follows c.
    Trained on the first nine tenths only, it learns the ab text and knows nothing new of c."""
    text = "ab" * 450 + "c" * 100
    settings = training.Settings(n_embd=4, n_head=1, n_layer=1, block_size=8, batch_size=16, steps=200, learning_rate=0.1, eval_batches=2, evals=4, keep_best=False)
    train, val = training.split(torch.arange(len(text)), settings)
    assert (len(train), len(val)) == (900, 100) and val[0] == 900  # the last tenth
    model, vocab, history = training.train(Bigram, text, settings)
    assert len(history.val_losses) == len(history.eval_losses) == len(history.eval_steps) == 5
    assert history.after < 0.1  # it learned the ab text
    assert history.val_after > math.log(3) - 0.1  # and nothing of cc: no better than a uniform guess of a, b, c
    assert training.new_model(Bigram, vocab, training.Settings(dropout=0.2)).dropout.p == 0.2


def test_stubs_name_ex0_in_both_languages(tmp_path):
    proc = run_write(EXERCISES, "--out", str(tmp_path / "out"))
    assert proc.returncode == 1
    said = proc.stdout + proc.stderr
    assert "先完成 ex0_weighted_sum" in said and "finish ex0_weighted_sum" in said, said
    assert "Traceback" not in said
    assert not (tmp_path / "out").exists()


def test_the_readme_commands_as_written_in_a_fresh_clone(fresh_clone):
    """README's tox -e write commands (tests/student/test_start_commands.py leaves them here), run as tox.ini runs
    them from a clone, where the exercises are still the stubs: each names ex0, in both languages, and
    writes nothing; the options it shows are accepted (a --prompt outside the corpus would be refused first)."""
    from test_start_commands import left_to_others, readme_commands

    written = [shlex.split(c) for c in readme_commands() if left_to_others(c)]
    assert written[0] == ["tox", "-e", "write"] and any("--prompt" in argv for argv in written), written
    for argv in written:
        assert argv[3:4] in ([], ["--"]), argv
        proc = run_write(*argv[4:], cwd=str(fresh_clone))
        said = proc.stdout + proc.stderr
        assert proc.returncode == 1 and "先完成 ex0_weighted_sum" in said and "finish ex0_weighted_sum" in said, (argv, said)
        assert "Traceback" not in said
    assert not (fresh_clone / "written").exists()


def test_the_first_unfinished_exercise_is_named(tmp_path):
    stub = (Path(EXERCISES) / "ex3_scaling.py").read_text(encoding="utf-8")
    folder = submission(tmp_path / "mine", {"ex3_scaling": stub})
    proc = run_write(folder)
    assert proc.returncode == 1
    assert "先完成 ex3_scaling" in proc.stderr and "finish ex3_scaling" in proc.stderr, proc.stderr
    assert "ex3_scaling.py:" in proc.stderr  # where: the stub's line


def test_code_that_raises_is_named_without_a_traceback(tmp_path):
    source = (Path(SOLUTIONS) / "ex6_block.py").read_text(encoding="utf-8")
    broken = source.replace("return self.net(x)", "return self.net(x[..., :-1])")  # a Linear of the wrong width
    assert broken != source
    folder = submission(tmp_path / "mine", {"ex6_block": broken})
    proc = run_write(folder)
    assert proc.returncode == 1
    assert "ex6_block" in proc.stderr and "出错" in proc.stderr and "raised an error" in proc.stderr, proc.stderr
    assert "--only ex6_block" in proc.stderr and "Traceback" not in proc.stderr


def test_a_head_without_the_mask_trains_and_is_caught(tmp_path):
    no_mask = (WRONG / "ex5_head__no_mask.py").read_text(encoding="utf-8")
    folder = submission(tmp_path / "mine", {"ex5_head": no_mask})
    proc = run_write(folder, "--steps", STEPS, "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert LOSS.search(proc.stdout)  # it trained
    grader = [line for line in proc.stdout.splitlines() if line.startswith("评分 / grader: ")]
    assert len(grader) == 1 and "ex5_head −" in grader[0], proc.stdout
    assert "好得不真实" in proc.stdout and "too good to be true" in proc.stdout
    assert "看得见后面的字" in proc.stdout and "sees the future" in proc.stdout
    assert "因果掩码" in proc.stdout and "causal mask" in proc.stdout


def test_a_prompt_outside_the_corpus_is_refused(tmp_path):
    proc = run_write(SOLUTIONS, "--prompt", "注意力😀", "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "😀" in proc.stderr and "语料里没有" in proc.stderr and "the corpus does not" in proc.stderr


# - the corpus -


def test_corpus_is_up_to_date_with_docs():
    assert corpus.load() == corpus.extract(), "write/corpus.txt is out of date: run python -m write.corpus"


def test_corpus_is_only_chinese_prose():
    text = corpus.load()
    lines = text.splitlines()
    assert len(text) > 5000 and all(lines)
    markup = ("{gls}", "{num}", "{doc}", "```", ":::", "](", "**", "\0")
    for line in lines:
        assert not [m for m in markup if m in line] and not line.startswith((">>>", "#", "- ", "|")), line
        chinese = len(re.findall(r"[\u3400-\u9fff]", line))
        assert chinese / len(line.replace(" ", "")) > 0.15, line  # Chinese sentences, maybe naming some code
    # Nothing of the English text, nor of the code blocks, nor of the teacher-only pages.
    docs = Path(ROOT) / "docs"
    for page in corpus.pages(str(docs)):
        source = Path(page).read_text(encoding="utf-8")
        for en in re.findall(r"^:::\{en\}\n(.*?)^:::$", source, flags=re.S | re.M):
            for sentence in re.findall(r"[A-Z][a-z]+(?: [a-z]+){4,}", en):
                assert sentence not in text, sentence
        for code in re.findall(r"^```[a-z]+\n(.*?)^```$", source, flags=re.S | re.M):
            for line in code.splitlines():
                assert len(line) < 12 or line.strip() not in lines, line
    assert not [p for p in corpus.pages(str(docs)) if "answers" in Path(p).parts]


def test_corpus_has_no_latin_letters_nor_code():
    """The model learns Chinese: no name of code, English word, path or unit to write half of."""
    text = corpus.load()
    assert len(text) > 5000
    assert not re.findall(r"[A-Za-z\uff21-\uff3a\uff41-\uff5a\u00c0-\u024f]", text)
    assert not re.findall(r"[`_=<>{}|\\#@$%^&*;:'\"]", text)  # nor the signs of code
    for empty in ("（）", "()", "“”", "[]", "《》"):  # nor what a cut would leave
        assert empty not in text, empty
    assert not re.findall(r"[、，；：][、，。；：！？）]|[（“][、，；：]|^[、，；：。]", text, flags=re.M)
    assert gpt_sentence() in text  # the sentence the docs' trained heads read is whole


def gpt_sentence() -> str:
    source = (Path(ROOT) / "docs" / "figures" / "gpt_trained.py").read_text(encoding="utf-8")
    return re.search(r'^SENTENCE = "([^"]+)"', source, flags=re.M).group(1)


@pytest.mark.parametrize(
    "markdown, text",
    [
        ("温度（temperature）作用在 `logits` 上，不在注意力里。", "温度作用在上，不在注意力里。"),
        ("按位置 0、1、……、T - 1（`torch.arange(T)`）查。", "按位置 0、1、……查。"),
        ("汇总是 [0.845, 0.670]，形状是 (B, T, C)。", "汇总是 [0.845, 0.670]，形状是。"),
        ("k 不只是个旋钮。{doc}`ex3 <ex3_scaling>` 把分数乘以 head_size 的 −0.5 次方。", "不只是个旋钮。把分数乘以的 −0.5 次方。"),
        ("报告在 `report.html` 和 `report.pdf`，约 1.1 MB。", "报告在和，约。"),
        ("写成“sofghtmax”，或者 `tests/de`：都不对。", "写成，或者：都不对。"),
        ("`tox -e write`。\n它会训练。", "它会训练。"),  # a sentence with nothing Chinese left goes
        ("用 `torch.tril`、`torch.triu` 和 `masked_fill` 做掩码，见 ex4、ex5、ex6。", "用和做掩码，见。"),
        ("分数是 2、`x`、9：结束；", "分数是 2、9：结束；"),
        ("读到“{num}`r1`”时（{num}`w|.2f`）。下一句。", "下一句。"),  # a number filled in at build time
        ("练习页：{doc}`/path/ex0`。下一句。", "下一句。"),  # so is a page's title
    ],
)
def test_latin_and_code_are_cut_with_the_punctuation_they_leave(markdown, text):
    assert corpus.clean(corpus._join(markdown.splitlines())) == text


def test_corpus_extraction_keeps_the_chinese_prose_only(tmp_path):
    page = """\
# 标题 · Title

:::{zh}
第一段：{gls}`注意力`让每个位置看见
前文（`torch.tril`），见[路线](path/index.md)。

- 列表的第一项；
- 第二项，**很重要**。

    x = x + sa(ln1(x))

方差是 {num}`d.var()|.1f`。权重是 {num}`0.68 <w[1, 0]>`。
:::

:::{en}
The English text is left out.
:::

```python
print("代码也不要")
```

```{teacher-only}
:::{zh}
老师才看得到的话。
:::
```
"""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(page, encoding="utf-8")
    (tmp_path / "docs" / "answers").mkdir()
    (tmp_path / "docs" / "answers" / "ex0.md").write_text(":::{zh}\n参考答案。\n:::\n", encoding="utf-8")
    assert corpus.extract(str(tmp_path / "docs")) == ("第一段：注意力让每个位置看见前文，见路线。\n列表的第一项；\n第二项，很重要。\n权重是 0.68。\n")


# - in a student release -


def test_works_in_a_student_release(tmp_path):
    release = tmp_path / "attention"
    proc = run_cli("release", "--out", str(release))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (release / "write" / "corpus.txt").read_bytes() == (Path(ROOT) / "write" / "corpus.txt").read_bytes()
    assert not (release / "docs").exists()
    stubs = run_write("--steps", "3", cwd=str(release))
    assert stubs.returncode == 1 and "finish ex0_weighted_sum" in stubs.stderr, stubs.stderr
    for name in os.listdir(SOLUTIONS):
        if name.endswith(".py"):
            shutil.copy(os.path.join(SOLUTIONS, name), release / "exercises" / name)
    proc = run_write("--steps", "5", "--out", str(tmp_path / "written"), cwd=str(release))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert LOSS.search(proc.stdout)
    assert "评分 / grader: " in proc.stdout and "公开检查 / public checks" in proc.stdout and "丢分" not in proc.stdout, proc.stdout
    assert (tmp_path / "written" / "samples.txt").is_file()


# - the weights the docs show -


def test_the_docs_weights_load_into_the_solutions_and_reach_their_loss():
    """docs/figures/gpt_trained.pt (made by python docs/figures/gpt_trained.py) is what tox -e write
    trains with its defaults on the solutions and on corpus.txt as it is now, but for the weights kept (the
    last step's); the docs compute everything they show from it. After python -m write.corpus, retrain it."""
    path = Path(ROOT) / "docs" / "figures" / "gpt_trained.pt"
    assert path.stat().st_size <= 2 * 1024 * 1024
    check = (
        "import dataclasses, sys; sys.path.insert(0, 'docs')\n"
        "from figures import gpt_trained\n"
        "from write import corpus, training\n"
        "model, vocab, text, settings, history = gpt_trained.trained()\n"  # loads into the solutions' GPT, strictly
        "assert settings == gpt_trained.SETTINGS == dataclasses.replace(training.Settings(), keep_best=False), settings\n"
        "assert text == corpus.load(), 'write/corpus.txt changed since: python docs/figures/gpt_trained.py'\n"
        "print(*gpt_trained.losses(), history.before, history.after, history.val_before, history.val_after)\n"  # raises unless they agree
    )
    proc = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    before, after, val_before, val_after, *saved = map(float, proc.stdout.split())
    assert max(abs(a - b) for a, b in zip((before, after, val_before, val_after), saved)) < 1e-3
    assert after < before / 4  # trained
    assert val_after > after + 1  # the held-out text is not the training text: the ex7 page shows the gap


def test_ctrl_c_stops_without_a_traceback(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "write", SOLUTIONS, "--steps", "100000", "--out", str(tmp_path / "out")],
        cwd=ROOT, env={**env, "PYTHONDONTWRITEBYTECODE": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )  # fmt: skip
    assert proc.stdout.readline().startswith("训练 / training")  # training starts
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert "中断了 / interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
