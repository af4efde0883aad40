"""The course's exercises: one id per exercise, used for the file, the checks,
the docs page and the report line."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    id: str
    zh: str
    en: str

    @property
    def filename(self) -> str:
        return f"{self.id}.py"


EXERCISES = (
    Exercise("ex0_weighted_sum", "加权汇总", "weighted sum"),
    Exercise("ex1_averaging", "平均矩阵", "averaging matrix"),
    Exercise("ex2_scores", "点积分数", "dot-product scores"),
    Exercise("ex3_scaling", "缩放", "scaling"),
    Exercise("ex4_masking", "因果掩码", "causal masking"),
    Exercise("ex5_head", "注意力头", "one attention head"),
    Exercise("ex6_block", "GPT 块", "a GPT block"),
)
IDS = tuple(e.id for e in EXERCISES)
BY_ID = {e.id: e for e in EXERCISES}
