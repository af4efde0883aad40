"""``python -m write``: the student's own GPT, trained on the course's own
text, writes. Run as a student runs it (a process of its own), with few
steps: the loss falls on the training text and on the held-out text, the
same seed writes the same, unfinished or wrong code is named in both
languages, and it works in a student release. The corpus is Chinese prose
without a Latin letter, and the model never trains on its held-out tenth."""
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import EXERCISES, ROOT, SOLUTIONS, ctrl_c_as_in_a_terminal, python_m_grader, run_cli

from write import corpus, png, training

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
    data = (solved[1] / "loss.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = {}, 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        chunks[kind] = body
        pos += 12 + length
    assert list(chunks) == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (width, height, depth, colour) == (640, 360, 8, 2)
    pixels = zlib.decompress(chunks[b"IDAT"])
    assert len(pixels) == height * (1 + 3 * width)
    assert len(set(pixels)) > 5  # not blank
    rows = np.frombuffer(pixels, np.uint8).reshape(height, 1 + 3 * width)  # filter type 0: the pixels as they are
    colours = {tuple(map(int, px)) for px in np.unique(rows[:, 1:].reshape(-1, 3), axis=0)}
    assert png.MEASURED_COLOUR in colours and png.VAL_COLOUR in colours  # both measured curves

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


def test_the_held_out_tenth_is_never_trained_on():
    """The last tenth of "abab...ab" + "cc...c" is all c: a model trained on it would learn that c follows c.
    Trained on the first nine tenths only, it learns the ab text and knows nothing new of c."""
    text = "ab" * 450 + "c" * 100
    settings = training.Settings(n_embd=4, n_head=1, n_layer=1, block_size=8, batch_size=16, steps=200, learning_rate=0.1, eval_batches=2, evals=4)
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
    assert corpus.extract(str(tmp_path / "docs")) == (
        "第一段：注意力让每个位置看见前文，见路线。\n"
        "列表的第一项；\n"
        "第二项，很重要。\n"
        "权重是 0.68。\n"
    )


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
    trains with its defaults on the solutions and on corpus.txt as it is now; the docs compute everything
    they show from it. After python -m write.corpus, retrain it."""
    path = Path(ROOT) / "docs" / "figures" / "gpt_trained.pt"
    assert path.stat().st_size <= 2 * 1024 * 1024
    check = (
        "import sys; sys.path.insert(0, 'docs')\n"
        "from figures import gpt_trained\n"
        "from write import corpus, training\n"
        "model, vocab, text, settings, history = gpt_trained.trained()\n"  # loads into the solutions' GPT, strictly
        "assert settings == training.Settings(), settings\n"
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
