"""(Re)build ``examples/submissions/``: six of the eight made-up students for
trying the batch grader (``tox -e teacher -- batch examples/submissions --out out/``).

    python examples/make_submissions.py

They are made from ``solutions/``, the stubs in ``exercises/`` and the
catalogue of usual mistakes in ``tests/catalogue/wrong/``:

- ``anna/``: everything right (a copy of the solutions): full marks.
- ``ben/``: ex0–ex3 done, the rest still the stubs.
- ``李明/``: usual mistakes: the mask filled with 0 (ex4), scores scaled by
  n_embd (ex5), post-norm (ex6).
- ``dana smith/attention/``: nbgrader's collected layout (a folder per
  assignment), with tril and triu swapped in ex1 and ex3 divided by head_size.
- ``eve/``: ex1–ex3 done honestly, ex0 an attack that prints a fake 100/100
  report and leaves with ``os._exit(0)``; ex4 onwards stubs.
- ``frank.zip``: a zip with an ``exercises/`` folder inside; ex2 computes
  k @ qᵀ.

Not made here, and left alone: ``grace/``, her own code in her own style
(ex4's mask filled in place, which one hidden check catches), and ``hugo/``,
grace's code with the variables renamed, functions and classes moved, new
comments and another layout, for ``python -m grader similar`` to find.

Not for the student edition: anna's folder is the solutions.
"""

import os
import shutil
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "submissions")
SOLUTIONS = os.path.join(ROOT, "solutions")
STUBS = os.path.join(ROOT, "exercises")
WRONG = os.path.join(ROOT, "tests", "catalogue", "wrong")
sys.path.insert(0, ROOT)

from grader.exercises import IDS  # noqa: E402 - after the sys.path line above

EVE_EX0 = '''"""ex0: weighted_sum."""
import os
import sys

import torch

# An attack: pretend the grader already ran and gave 100/100, then leave
# before any check can run.
print("注意力练习评分 / Attention exercises")
print("总分 / total                                             100 / 100")
print('{"score": 100.0, "tests": []}')
sys.stdout.flush()
os._exit(0)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores, dim=-1).unsqueeze(-2).matmul(values).squeeze(-2)
'''


def files(base: str = SOLUTIONS, stubs: tuple = (), wrong: tuple = ()) -> dict:
    """exercise file name -> source: ``base`` with some exercises left as
    stubs and some replaced by a catalogue mistake (``ex4_masking__filled_with_zero``)."""
    out = {}
    for ex in IDS:
        src = os.path.join(STUBS if ex in stubs else base, ex + ".py")
        with open(src, encoding="utf-8") as f:
            out[ex + ".py"] = f.read()
    for name in wrong:
        with open(os.path.join(WRONG, name + ".py"), encoding="utf-8") as f:
            # Without the project's test marks (``# marked: ...``, ``# diagnosis: ...``, tests/support/catalogue_marks.py): a student writes none.
            out[name.split("__")[0] + ".py"] = "".join(line for line in f if not line.startswith(("# marked:", "# diagnosis:")))
    return out


def write(folder: str, sources: dict) -> None:
    os.makedirs(folder, exist_ok=True)
    for name, text in sources.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)


MADE_HERE = ("anna", "ben", "李明", "dana smith", "eve", "frank.zip")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name in MADE_HERE:
        path = os.path.join(OUT, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.unlink(path)
    write(os.path.join(OUT, "anna"), files())
    write(os.path.join(OUT, "ben"), files(stubs=IDS[4:]))
    write(
        os.path.join(OUT, "李明"),
        files(wrong=("ex4_masking__filled_with_zero", "ex5_head__scaled_by_n_embd", "ex6_block__post_norm")),
    )
    write(
        os.path.join(OUT, "dana smith", "attention"),
        files(wrong=("ex1_averaging__triu", "ex3_scaling__divides_by_head_size")),
    )
    eve = files(stubs=IDS[4:])
    eve["ex0_weighted_sum.py"] = EVE_EX0
    write(os.path.join(OUT, "eve"), eve)
    frank = files(wrong=("ex2_scores__k_at_q_transposed",))
    with zipfile.ZipFile(os.path.join(OUT, "frank.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in sorted(frank.items()):
            info = zipfile.ZipInfo("exercises/" + name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
