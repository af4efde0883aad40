"""Attack: print a fake score table, fake Gradescope JSON and terminal escape
codes that would repaint the real total line (cursor up, clear line), then
answer wrongly.

What a child prints goes to a pipe the grader drains, never to the grader's
own stdout or to results.json; the terminal report shows it indented, with
control characters made visible. 0 points.
"""
import json
import sys

import torch

FAKE_TABLE = """\
注意力练习评分 / Attention exercises
────────────────────────────────────────────────────────────────────────────────
✓ ex0_weighted_sum  加权求和 weighted sum                 100 / 100         3 / 3
────────────────────────────────────────────────────────────────────────────────
总分 / total                                             100 / 100
"""
FAKE_JSON = {"score": 100.0, "tests": [{"name": "ex0_weighted_sum", "score": 100.0, "max_score": 100.0, "status": "passed"}]}
REPAINT = "\x1b[2J\x1b[H" + "\x1b[12A\r\x1b[2K总分 / total                                             100 / 100\x1b[K\n" + "\x9b2J"

print(FAKE_TABLE, flush=True)
print(json.dumps(FAKE_JSON), flush=True)
sys.stderr.write(REPAINT)
sys.stderr.flush()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    print(FAKE_TABLE + json.dumps(FAKE_JSON) + REPAINT, flush=True)
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
