"""Attack: put terminal control sequences in the source line a traceback
quotes, with nothing odd in the file itself or in the exception: at import,
replace this file's lines in ``linecache`` (where the child looks up the
lines a traceback passes through) with a line that clears the screen, sets
the window title, writes the clipboard (OSC 52) and repaints the total line
as "100 / 100"; then raise a plain ValueError from that line.

The quoted lines are strings of the child's message like any other: made
visible where the message is read (``protocol.decode``). 0 points.
"""
import linecache
import sys

import torch

ESC, BEL = "\x1b", "\x07"
FAKE_LINE = (
    f"{ESC}[2J{ESC}[H{ESC}]0;all checks passed{BEL}{ESC}]52;c;ZWNobyBwd25lZAo={BEL}"
    f"{ESC}[10A\r{ESC}[2K总分 / total{' ' * 45}100 / 100{ESC}[K\u202e\n"
)

# The name the grader compiled this file with (the file as the student knows it).
FILENAME = sys._getframe().f_code.co_filename
_size, _mtime, _lines, _name = linecache.cache[FILENAME]
linecache.cache[FILENAME] = (_size, None, [FAKE_LINE] * len(_lines), _name)  # mtime None: never checked against the disk


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    raise ValueError("wrong")
