"""What ``python -m grader grade`` does once it has a grader: grade the
folder, and say what the command says (the terminal's report, the notes
for stderr, results.json, the exit status).

The command line, the warm grader (``warm_server``: ``check()`` in a
notebook) and ``grade --watch`` all grade through here, so the three say
the same thing about the same files.
"""
import os
from dataclasses import dataclass


@dataclass
class Said:
    """What one grading prints and returns, as the command line would."""

    code: int  # 0 graded; 3 the grader itself failed on something (the report says what)
    stdout: str  # the report
    stderr: str = ""  # the grader's own notes (code not fully confined here, say)
    passed: bool = True  # every check graded passed (``grade --exit-code`` exits 1 otherwise)


def grade_folder(grader, args) -> Said:
    """Grade ``args.path`` as ``grade`` asks (``--only``, ``--public-only``,
    ``--json``, ``--display-name``, ``--inputs-seed``) with ``grader``.

    Each grading gets its own secret for the checks' inputs unless one is
    asked for: a grader that lives for many gradings (the warm grader) gives
    none of them the inputs of another."""
    from grader.student import report
    from grader.engine.grading import unconfined_note
    from grader.text import visible

    seed = grader.seed_for(args.inputs_seed)  # None: a fresh one for this grading, not the grader's own
    # The title names the folder: a student's folder name, if the shell expanded a pattern.
    grade = grader.grade(
        os.path.abspath(args.path),
        only=args.only,
        display_root=visible(args.display_name or args.path, name=True),
        public_only=args.public_only,
        inputs_seed=seed,
    )
    notes = unconfined_note(grade.unconfined) + "\n" if grade.unconfined and not grader.quiet else ""
    if args.json:
        report.write_json(grade, args.json)
    passed = all(r.passed for r in grade.results)
    return Said(3 if grade.errors else 0, report.terminal(grade), notes, passed)
