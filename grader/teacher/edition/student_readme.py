"""The student edition's README.md, section by section.

What README.md already says to students (the title and introduction, what
to install, the CPU build of PyTorch) is taken from README.md itself, from
each block between ``<!-- student-readme: NAME -->`` and
``<!-- /student-readme -->``; the exercise table is built from
``grader/exercises.py``; the rest is said to students of the release alone
(its commands differ from the project's).

Its only link to the course notes goes to the site ``release --docs-url``
names; without one the README says to ask the teacher for the address, as
the release holds no docs/ for a link to point into.
"""

import os
import re

from grader.exercises import EXERCISES
from grader.files import PROJECT
from grader.teacher.edition import packaging

BLOCK = re.compile(r"^<!-- student-readme: (\S+)[^\n]*-->\n(.*?)^<!-- /student-readme -->$", re.M | re.S)


def shared_blocks(project: str = PROJECT) -> dict[str, str]:
    """README.md's blocks for students, by name, without their markers."""
    with open(os.path.join(project, "README.md"), encoding="utf-8") as f:
        return {name: body.strip("\n") for name, body in BLOCK.findall(f.read())}


def student_readme(hidden_total: float, project: str = PROJECT, docs_url: str | None = None) -> str:
    """The README of a release whose course site is at ``docs_url`` (None: not given)."""
    blocks = shared_blocks(project)
    missing = {"intro", "requirements", "cpu-build"} - set(blocks)
    if missing:
        raise packaging.BuildError(
            f"README.md 缺少给学生的段落：{', '.join(sorted(missing))}",
            f"README.md lacks the blocks for students: {', '.join(sorted(missing))} (<!-- student-readme: NAME --> ... <!-- /student-readme -->)",
        )
    sections = [
        blocks["intro"],
        _exercise_table(),
        _course_notes(docs_url),
        # The CPU build before the first command: a student reading in order installs it, not the CUDA one.
        "## 开始 / Getting started\n\n" + blocks["requirements"] + "\n\n" + blocks["cpu-build"] + "\n\n" + GETTING_STARTED,
        READING_THE_TABLE,
        JUPYTER,
        EXPERIMENTS,
        WRITE,
        _hidden_checks(hidden_total),
    ]
    return "\n\n".join(sections) + "\n"


def _course_notes(docs_url: str | None) -> str:
    if docs_url:
        return f"讲义 / Course notes: [{docs_url}]({docs_url})"
    return "讲义 / Course notes: 课程网站的网址请问老师 / ask your teacher for the course site's address"


def _exercise_table() -> str:
    rows = [f"| `exercises/{e.filename}` | {e.zh} | {e.en} |" for e in EXERCISES]
    return "\n".join(["| 文件 / file | 练习 | exercise |", "|---|---|---|", *rows])


def _hidden_checks(hidden_total: float) -> str:
    hidden = f"{hidden_total:g}"
    return f"""\
## 隐藏检查 / Hidden checks

这里只有公开检查。分数后面的 (+n) 是隐藏检查的分数（共 {hidden} 分），由老师评分：
公开检查全部通过，不等于隐藏检查也能通过。
Only the public checks are here. The (+n) after a score is the points of hidden
checks ({hidden} in all), graded by your teacher: passing every public check does
not mean passing the hidden ones."""


GETTING_STARTED = """\
1. 打开 `exercises/ex0_weighted_sum.py`，在 `TODO` 处写代码，替换 `raise NotImplementedError`。
   Open `exercises/ex0_weighted_sum.py` and write your code where it says `TODO`,
   in place of `raise NotImplementedError`.
2. 评分 / Grade your work:

   ```bash
   tox -e grade                                     # 全部练习 / all exercises
   tox -e grade -- --only ex4_masking               # 一道练习 / one exercise
   tox -e grade -- --watch                          # 一直开着：每次保存都重新评分，Ctrl-C 结束 / stay open: grade again on each save; Ctrl-C ends
   tox -e grade -- exercises --json results.json    # 另外写出 results.json / also write results.json
   tox -e grade -- --help                           # 全部选项 / every option
   ```

报告最后两行是总分和下一步。还有检查没通过时，tox 最后说 `evaluation failed :(`；每项检查都通过了，才说 `congratulations :)`。
The report's last two lines give the total and the next step. While a check fails, tox ends with
`evaluation failed :(`; once every check passes, with `congratulations :)`."""

READING_THE_TABLE = """\
## 看懂评分表 / Reading the table

每道练习一行：得分和通过的检查数。✓ 全部通过，~ 部分通过，· 一项也没通过。
表格下面是每项没通过的检查：测了什么、你的代码得到什么、期望什么，以及提示。
“尚未完成 / not implemented yet” 表示你还没开始这道练习，只扣这道练习的分。

One line per exercise: points and checks passed (✓ all, ~ some, · none). Below
the table, each failed check says what was tested, what your code gave, what
was expected, and a hint. "not implemented yet" means you have not started that
exercise; it costs only that exercise's points."""

JUPYTER = """\
## 在 Jupyter 里 / In Jupyter

每道练习也是一个笔记本 `notebooks/<id>.ipynb`：在标着答案的那个单元格里写代码，保存（Ctrl-S），
再运行最后一个单元格 `check("<id>")`，它给出和 `tox -e grade` 一样的报告。
Each exercise is also a notebook, `notebooks/<id>.ipynb`: write your code in its answer cell,
save (Ctrl-S), and run its last cell, `check("<id>")`, which shows the report `tox -e grade` gives.

```bash
tox -e lab                            # JupyterLab 打开 notebooks/ / JupyterLab on notebooks/
tox -e lab -- --ip=0.0.0.0            # 在容器里 / in a container (docker run -p 8888:8888 ...)
```

以 root 运行也可以（容器里、机房的电脑上常常是 root）。在容器里，第二行让容器外的浏览器也能连上：
打开它打印的 `http://127.0.0.1:8888/lab/tree/notebooks?token=...`。
It runs as root too (as a student often is in a container or on a lab machine). In a container, the
second line lets a browser outside it connect: open the `http://127.0.0.1:8888/lab/tree/notebooks?token=...`
it prints."""

EXPERIMENTS = """\
## 实验 / Experiments

```bash
tox exec -e grade -- python experiments/ex0_weighted_sum_experiment.py
```

`experiments/` 里每道练习有一个只用 torch 的小脚本（讲义的每一页都有一个），不用你的代码，题目没做完也能运行。
One small plain-torch script per exercise (each page of the course notes has one); it
does not use your code, so it runs before you solve the exercise."""

WRITE = """\
## 让你的 GPT 写字 / Let your GPT write

```bash
tox -e write                          # 约 2 分钟 / about 2 minutes; --steps N, --seed N, --prompt 文字, --out DIR
```

用你自己的 Head、MultiHeadAttention、Block 和 GPT 搭一个小 GPT，在本课讲义的中文上训练
（`write/corpus.txt`），然后让它写几段字；样本、损失曲线和权重写进 `written/`。哪道练习还没写完，
它会先告诉你；代码能运行但有错时，它照样训练，并给出评分结果。
Builds a small GPT from your own Head, MultiHeadAttention, Block and GPT, trains it
on the Chinese text of the course notes (`write/corpus.txt`) and lets it write;
the samples, the loss curve and the weights go to `written/`. It first tells you
which exercise is unfinished; code that runs but is wrong still trains, and you
get the grader's verdict."""
