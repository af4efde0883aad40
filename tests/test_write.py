"""``python -m write``: the student's own GPT, trained on the course's own
text, writes. Run as a student runs it (a process of its own), with few
steps: the loss falls, the same seed writes the same, unfinished or wrong
code is named in both languages, and it works in a student release."""
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

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, ctrl_c_as_in_a_terminal, run_cli

from write import corpus

STEPS = "20"
WRONG = Path(ROOT) / "tests" / "catalogue" / "wrong"
LOSS = re.compile(r"损失 / loss: (\d+\.\d+) → (\d+\.\d+)")


def run_write(*args, cwd: str = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the folders trained on stay as they are
    return subprocess.run([sys.executable, "-m", "write", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


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


def test_corpus_extraction_keeps_the_chinese_prose_only(tmp_path):
    page = """\
# 标题 · Title

:::{zh}
第一段：{gls}`注意力`让每个位置看见
前文，用 `torch.tril` 和[路线](path/index.md)。

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
        "第一段：注意力让每个位置看见前文，用 torch.tril 和路线。\n"
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
    trains with its defaults on the solutions; the docs compute everything they show from it."""
    path = Path(ROOT) / "docs" / "figures" / "gpt_trained.pt"
    assert path.stat().st_size <= 2 * 1024 * 1024
    check = (
        "import sys; sys.path.insert(0, 'docs')\n"
        "from figures import gpt_trained\n"
        "from write import training\n"
        "model, vocab, text, settings, history = gpt_trained.trained()\n"  # loads into the solutions' GPT, strictly
        "assert settings == training.Settings(), settings\n"
        "print(*gpt_trained.losses(), history.before, history.after)\n"  # raises unless they agree
    )
    proc = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    before, after, saved_before, saved_after = map(float, proc.stdout.split())
    assert abs(after - saved_after) < 1e-3 and abs(before - saved_before) < 1e-3
    assert after < before / 4  # trained


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
    assert proc.returncode == 130
    assert "中断了 / interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
