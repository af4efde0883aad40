"""The course's exercises: the one table everything else is derived from.

Each row is an exercise: its id (used for the file, the checks, the docs page
and the report line), its title in both languages, the points of its public
and of its hidden checks, the public functions and classes its file defines
(``defines``: what a later exercise may import from it, so what the grader's
stand-in module for it offers; functions are lowercase, classes capitalised),
the contract's classes its checks may ask the grader to build in place of the
student's own (``standins``; both are used by ``grader/child/standins.py``),
and the methods of its classes that the checks call besides ``forward``
(``methods``, as ``Class.method``: the degenerate and unseen-input tests
answer them too). The exercise list, the total, the docs' toctrees and
overview table, the teacher edition's answer pages, the release, the
gradebook's cells, the columns of grades.csv, every count of exercises in the
docs, the order in which ``tox -e write`` tries the exercises and the
project's per-exercise tests (with the marks in the catalogue files,
tests/support/catalogue_marks.py) come from here; the project's tests hold the checks'
``@pytest.mark.points`` markers and the README to it (tests/unit/test_exercises.py).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    id: str
    zh: str
    en: str
    public: int  # the points of checks/public/test_<id>.py
    hidden: int  # the points of checks/hidden/test_<id>.py
    defines: tuple[str, ...] = ()  # the public functions and classes of its file, as its stub names them
    standins: tuple[str, ...] = ()  # contract class names built by the grader in place of the student's own
    methods: tuple[str, ...] = ()  # "Class.method": methods of its classes the checks call besides forward

    @property
    def filename(self) -> str:
        return f"{self.id}.py"

    @property
    def notebook(self) -> str:
        """The exercise as a Jupyter notebook: graded like the .py (grader/handin/notebook_source.py)."""
        return f"{self.id}.ipynb"

    @property
    def points(self) -> int:
        return self.public + self.hidden


EXERCISES = (
    Exercise("ex0_weighted_sum", "加权求和", "weighted sum", public=6, hidden=4, defines=("weighted_sum",)),
    Exercise("ex1_averaging", "平均矩阵", "averaging matrix", public=6, hidden=4, defines=("averaging_matrix", "average_past")),
    Exercise("ex2_scores", "点积分数", "dot-product scores", public=5, hidden=5, defines=("attention_scores",)),
    Exercise("ex3_scaling", "缩放", "scaling", public=5, hidden=5, defines=("scale_scores",)),
    Exercise("ex4_masking", "因果掩码", "causal masking", public=6, hidden=6, defines=("causal_mask", "causal_weights")),
    Exercise("ex5_head", "注意力头", "one attention head", public=8, hidden=8, defines=("Head",)),
    Exercise("ex6_block", "GPT 块", "a GPT block", public=8, hidden=9, defines=("MultiHeadAttention", "FeedForward", "Block"), standins=("Head", "MultiHeadAttention", "FeedForward")),
    Exercise("ex7_gpt", "会写字的 GPT", "a GPT that writes", public=7, hidden=8, defines=("GPT",), standins=("Block",), methods=("GPT.generate",)),
)
IDS = tuple(e.id for e in EXERCISES)
BY_ID = {e.id: e for e in EXERCISES}
TOTAL = sum(e.points for e in EXERCISES)

# The number of exercises in words, for prose (count_zh(), count_en()).
_ZH = "零一二三四五六七八九十"
_EN = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
       "eleven", "twelve")  # fmt: skip


def count_zh(n: int = len(EXERCISES)) -> str:
    """``n`` in Chinese numerals (up to 99): 8 -> 八, 12 -> 十二, 20 -> 二十."""
    if n <= 10:
        return _ZH[n]
    tens, ones = divmod(n, 10)
    return (_ZH[tens] if tens > 1 else "") + "十" + (_ZH[ones] if ones else "")


def count_en(n: int = len(EXERCISES)) -> str:
    """``n`` in English words up to twelve, digits beyond: 8 -> eight."""
    return _EN[n] if n < len(_EN) else str(n)
