"""Keeping the text of hidden checks and solutions out of reports.

Submission code can read files it is not meant to see where there is no
sandbox (and a bug might let it anywhere). Whatever it prints, raises or
names comes back as text that goes into the report; before it does, every
line that contains a line of a hidden check or of a solution region is
replaced. Short lines (``import torch``) are too common to be secrets.
"""

import glob
import os

from grader.authoring.regions import solution_regions

MIN_LENGTH = 20  # shorter lines are too common to be a giveaway
ANCHOR = 8  # how much of a secret's start finds it (at most MIN_LENGTH)
MARK = "[隐去：隐藏检查或参考答案的内容 / redacted: text of a hidden check or a solution]"


def _secret_lines(text: str) -> set[str]:
    # Comments and imports count too: a hidden check's comments explain what
    # it tests (found by tests/attacks/ex0_weighted_sum__hidden_checks_print.py,
    # which printed them past an exception for lines starting with "#").
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= MIN_LENGTH:
            out.add(line)
    return out


class Redactor:
    def __init__(self, checks_dir: str, solutions_dir: str):
        self.secrets: set[str] = set()
        for path in glob.glob(os.path.join(checks_dir, "hidden", "*.py")):
            with open(path, encoding="utf-8") as f:
                self.secrets |= _secret_lines(f.read())
        solution_files = glob.glob(os.path.join(solutions_dir, "*.py"))
        for path in solution_files:
            with open(path, encoding="utf-8") as f:
                for region in solution_regions(f.read()):
                    self.secrets |= _secret_lines(region)
        # Secrets by their first ANCHOR characters: a line holds a secret only
        # where one of its windows is an anchor, and most lines have none.
        # Testing every one of hundreds of secrets against every line cost
        # about 4% of a submission's grading.
        self._by_anchor: dict[str, list[str]] = {}
        for secret in self.secrets:
            self._by_anchor.setdefault(secret[:ANCHOR], []).append(secret)

    def _holds_secret(self, line: str, known: frozenset) -> bool:
        by_anchor = self._by_anchor
        for i in range(len(line) - ANCHOR + 1):
            for secret in by_anchor.get(line[i : i + ANCHOR], ()):
                if secret in line and secret not in known:
                    return True
        return False

    def clean(self, text: str, known: frozenset = frozenset()) -> str:
        """``known``: lines of the submission's own files. A student whose
        code has a line the solution also has may see it quoted back (in a
        traceback, say): it is theirs already."""
        if not self.secrets or not text:
            return text
        lines = text.splitlines()
        out = [MARK if len(line) >= MIN_LENGTH and self._holds_secret(line, known) else line for line in lines]
        return "\n".join(out) + ("\n" if text.endswith("\n") else "")
