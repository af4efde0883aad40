"""GitHub Classroom's autograding step: ``python -m grader.github_classroom [FOLDER] >> "$GITHUB_OUTPUT"``.

The student edition's ``.github/workflows/classroom.yml`` (made by the
teacher's ``release --github-classroom``) runs this in the student's
repository. It grades FOLDER (default ``exercises``) with the public checks
exactly as ``python -m grader grade`` does (``grade_command.grade_folder``),
writes the same report to standard error, which the Actions log shows, and
prints one line to standard output, ``result=<base64 JSON>``: the step output
that ``classroom-resources/autograding-grading-reporter`` reads from the
environment variable ``<STEP-ID>_RESULTS`` (its src/main.js), as the
classroom's own graders write theirs (autograding-command-grader's
src/main.js: ``core.setOutput('result', btoa(JSON.stringify(result)))``;
autograding-python-grader's bin/run.sh: ``echo "result=..." >>
"$GITHUB_OUTPUT"``).

The JSON is their ``{"version": 1, "status", "max_score", "tests": [...]}``,
one test per check with the check's points as its ``score`` and
``max_score``. The reporter's notice for GitHub Classroom
(src/notify-classroom.js) sums the tests' ``score`` over the runner's
``max_score``: the points are the report's total, out of the public checks'
points. Whatever goes wrong, a result is printed (0 points, status
"error", and one test of status "error" that says so: with no test at all
the reporter's src/helpers/test-helpers.js divides by zero and prints
"NaN") and the exit status is 0, so the reporter always has one to read.

A failed check's message is its feedback, cut to MESSAGE_CHARS at a line's
end when it is longer, its first Chinese and English lines kept, and a last
line that says it was cut and where the whole report is.
"""

import base64
import json
import os
import sys
import traceback

from grader.exercises import EXERCISES

MESSAGE_CHARS = 500  # of a check's feedback: the whole result travels in one environment variable
PUBLIC_POINTS = sum(e.public for e in EXERCISES)


def classroom_result(results: dict | None, failed: bool = False) -> dict:
    """The reporter's JSON for a results.json (``report.results_json``), or
    for no grading at all (``results`` None). ``failed``: the grader itself
    failed on something, so some checks may not have run."""
    tests = []
    for t in (results or {}).get("tests", []):
        passed = t["status"] == "passed"
        tests.append(
            {
                "name": t["name"],
                "status": "pass" if passed else "fail",
                "score": t["score"],
                "max_score": t["max_score"],
                "message": "" if passed else message(t["output"]),
                "test_code": "",  # the reporter prints it when it is not empty; the report above says it all
                "filename": "",
                "line_no": 0,  # the reporter prints " - line N" unless it is 0
            }
        )
    if not tests:
        tests.append(
            {
                "name": "评分 / grading",
                "status": "error",
                "score": 0,
                "max_score": 0,
                "message": "评分程序没能评分：原因在这次运行的 Actions 日志里 / the grader could not grade: the Actions log of this run says why",
                "test_code": "",
                "filename": "",
                "line_no": 0,
            }
        )
    if results is None or failed:
        status = "error"
    else:
        status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
    # The public points of the course, even where a check did not run: the
    # classroom then shows the same total as the student's `grade`.
    return {"version": 1, "status": status, "max_score": PUBLIC_POINTS, "tests": tests}


CUT = "…（截断：完整报告在这次运行的 Actions 日志里）/ … (cut: the whole report is in this run's Actions log)"


def message(feedback: str, limit: int = MESSAGE_CHARS) -> str:
    """``feedback`` in at most ``limit`` characters: whole lines, ended by
    ``CUT`` when some are left out; the first two lines (the Chinese and
    the English of what failed) kept, each shortened at a word if they are
    too long together."""
    if len(feedback) <= limit:
        return feedback
    room = limit - len(CUT) - 1
    lines = feedback.splitlines()
    kept: list[str] = []
    for line in lines:
        if sum(len(k) + 1 for k in kept) + len(line) > room:
            break
        kept.append(line)
    if len(kept) < min(2, len(lines)):  # the first lines are too long together: half the room each
        kept = [_shortened(line, room // 2 - 1) for line in lines[:2]]
    return "\n".join([*kept, CUT])


def _shortened(line: str, most: int) -> str:
    if len(line) <= most:
        return line
    cut = line[: most - 1]
    at = cut.rfind(" ")
    return (cut[:at] if at > most // 2 else cut) + "…"


def encoded(result: dict) -> str:
    return base64.b64encode(json.dumps(result, ensure_ascii=False).encode("utf-8")).decode("ascii")


def _grade(folder: str) -> tuple[dict | None, bool]:
    """results.json of ``grade FOLDER --public-only``, graded as the command
    line does, its report on standard error; and whether the grader failed."""
    from grader.engine.grading import Grader
    from grader.student.grade_command import grade_folder
    from grader.student.request import GradeRequest

    grader = Grader()
    try:
        graded = grade_folder(grader, GradeRequest(folder, public_only=True))
    finally:
        grader.close()
    sys.stderr.write(graded.notes + graded.report)
    return graded.results, graded.code != 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1:
        print('usage: python -m grader.github_classroom [FOLDER] >> "$GITHUB_OUTPUT"', file=sys.stderr)
        return 2
    folder = argv[0] if argv else "exercises"
    try:
        if not os.path.isdir(folder):
            print(f"找不到文件夹 / no such folder: {folder}", file=sys.stderr)
            results, failed = None, True
        else:
            results, failed = _grade(folder)
    except BaseException:  # noqa: BLE001 - whatever happened, the reporter gets a result
        traceback.print_exc()
        results, failed = None, True
    sys.stdout.write(f"result={encoded(classroom_result(results, failed))}\n")
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # as grader/__main__.py: no interpreter teardown once the result is out
