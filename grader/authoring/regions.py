"""The solution regions of a reference file: what a student writes.

A reference solution marks each of them with ``# BEGIN SOLUTION`` and
``# END SOLUTION``. The teacher's stub maker replaces them with a TODO; the
grader redacts their lines from whatever a submission sends back, in the
teacher's copy and (where they exist) anywhere else.
"""

import re

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"


def solution_regions(source: str) -> list[str]:
    """The text inside each solution region."""
    return re.findall(rf"{re.escape(BEGIN)}\n(.*?)\n[ \t]*{re.escape(END)}", source, flags=re.S)
