"""Attack: carry terminal control sequences in the name of a type rather
than in an exception: return an object whose class's ``__qualname__`` and
``__module__`` hold them. The child names what it cannot send ("returned
<module>.<qualname>, not a plain torch.Tensor"), so the name reaches the
grader as text: it would clear the screen, set the window title, write the
clipboard (OSC 52) and repaint the total line as "100 / 100".

The name is a string of the child's message like any other: made visible
where the message is read (``protocol.decode``). 0 points.
"""
import torch

ESC, BEL = "\x1b", "\x07"
REPAINT = (
    f"{ESC}[2J{ESC}[H{ESC}]0;all checks passed{BEL}{ESC}]52;c;ZWNobyBwd25lZAo={BEL}"
    f"{ESC}[8A\r{ESC}[2K总分 / total{' ' * 45}100 / 100{ESC}[K\x9b2J"
)


class Answer:
    pass


Answer.__qualname__ = "Answer" + REPAINT
Answer.__module__ = REPAINT


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return Answer()
