"""Gradescope: build the autograder bundle, and grade inside it.

``python -m grader gradescope --out autograder.zip`` writes the zip to upload
as a Gradescope "zip file upload" autograder. Gradescope unpacks it into
``/autograder/source``; at its root are ``setup.sh`` (run once when the image
is built: Python and the CPU build of PyTorch), ``run_autograder`` (run for
every submission) and the course itself: ``grader/``, ``checks/`` (public
and hidden) and ``solutions/``.

For each submission ``run_autograder`` calls
``python -m grader.teacher.platforms.gradescope autograde /autograder``, which finds the
exercise files (at the top of the submission or in a folder such as
``exercises/``), grades them with every check and writes
``/autograder/results/results.json`` (made by ``report.results_json``).
Whatever goes wrong, run_autograder leaves a valid results.json: a score of 0
with an explanation. Details for the teacher go to standard output, which
results.json keeps hidden from students.

Spec: https://gradescope-autograders.readthedocs.io/en/latest/specs/
"""

import os
import shutil
import sys
import traceback
from dataclasses import dataclass

from grader import __version__
from grader.exercises import EXERCISES
from grader.files import PROJECT
from grader.teacher.options import CommandOptions, OptionError

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
MAX_DEPTH = 3  # how deep in the submission exercise files are looked for
GRADER_TIMEOUT = 540  # seconds for one grading; keep Gradescope's own timeout above it

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (the bundle is unpacked in /autograder/source). It makes a Python >= 3.11
# environment in /autograder/venv with the CPU build of PyTorch: grading never
# needs a GPU, and PyPI's torch for Linux is a CUDA build of several GB.
set -euxo pipefail

ROOT="${{AUTOGRADER_ROOT:-/autograder}}"

apt-get update
# bubblewrap: the grader sandboxes submission code with it where the container allows.
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap
PY=python3
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    # An older image (Ubuntu 22.04 has Python 3.10); the course needs 3.11.
    apt-get install -y --no-install-recommends python3.11 python3.11-venv
    PY=python3.11
fi

"$PY" -m venv "$ROOT/venv"
"$ROOT/venv/bin/pip" install --no-cache-dir {torch} --index-url {index}
"$ROOT/venv/bin/pip" install --no-cache-dir {others}
"$ROOT/venv/bin/python" -c 'import torch; print("torch", torch.__version__)'
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission, from /autograder (the bundle is
# unpacked in /autograder/source). It grades /autograder/submission with
# every check, public and hidden, and always leaves
# /autograder/results/results.json: if grading fails, a score of 0 with an
# explanation. What it prints is shown to instructors only.
#
# AUTOGRADER_ROOT (default /autograder), PYTHON (default: the environment
# setup.sh made, else python3) and GRADER_TIMEOUT (seconds, default {timeout})
# can be set to run it elsewhere, e.g. to try it on your own machine.
#
# Everything is in functions that bash reads whole before it runs any of
# them, and the line that calls them also exits: bash reads a script as it
# goes, so whatever is written into this file while it runs is never read.
set -u

main() {{
    ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
    SOURCE="$ROOT/source"
    RESULTS="$ROOT/results/results.json"
    if [ -n "${{PYTHON:-}}" ]; then
        PY="$PYTHON"
    elif [ -x "$ROOT/venv/bin/python" ]; then
        PY="$ROOT/venv/bin/python"
    else
        PY=python3
    fi
    LIMIT="${{GRADER_TIMEOUT:-{timeout}}}"

    mkdir -p "$ROOT/results"
    rm -f "$RESULTS"
    # Where the grader is root without namespaces, submission code runs as a
    # user of the grader's own: the solutions, the hidden checks, the grader,
    # the submission and the results are root's alone (the Python
    # environment stays readable), and nobody else may write this script.
    chmod 0700 "$SOURCE" "$ROOT/results" "$ROOT/submission" 2>/dev/null
    chmod go-w "$ROOT" "$0" 2>/dev/null

    # The grader writes results.json and exits 0; anything else means it did not.
    status=0
    if command -v timeout >/dev/null; then
        (cd "$SOURCE" && PYTHONPATH="$SOURCE" timeout --kill-after=10 "$LIMIT" "$PY" -m grader.teacher.platforms.gradescope autograde "$ROOT") || status=$?
    else
        (cd "$SOURCE" && PYTHONPATH="$SOURCE" "$PY" -m grader.teacher.platforms.gradescope autograde "$ROOT") || status=$?
    fi
    if [ "$status" -ne 0 ] || ! valid; then
        fallback
    fi
}}

valid() {{
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(not isinstance(d.get("score"), (int, float)))' "$RESULTS" 2>/dev/null
}}

fallback() {{
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        zh="评分超过了 $LIMIT 秒，没能完成"
        en="Grading took longer than $LIMIT seconds and was stopped"
    else
        zh="评分程序没能完成（状态 $status）"
        en="The autograder could not finish grading this submission (status $status)"
    fi
    echo "run_autograder: $en; writing a score of 0" >&2
    cat > "$RESULTS" <<EOF
{{
  "score": 0,
  "execution_time": 0,
  "output": "$zh，暂记 0 分；老师能看到详细情况。\\n$en, so the score is 0 for now; your teacher can see the details.",
  "output_format": "simple_format",
  "visibility": "visible",
  "stdout_visibility": "hidden",
  "extra_data": {{"grader_version": "{version}"}},
  "tests": []
}}
EOF
}}

main "$@"; exit 0
"""


# - building the bundle -


@dataclass(frozen=True)
class GradescopeOptions(CommandOptions):
    """What ``python -m grader gradescope`` is asked to do."""

    out: str = "autograder.zip"  # the zip to write

    def __post_init__(self) -> None:
        self._check_paths("out")


def _usage(message: str) -> int:
    print(f"python -m grader gradescope: 错误 / error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    """``python -m grader gradescope``: argparse's namespace made a ``GradescopeOptions`` once, and the bundle built."""
    try:
        options = GradescopeOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return make_bundle(options)


def make_bundle(options: GradescopeOptions) -> int:
    """Build the autograder bundle at ``options.out``; the exit code."""
    out = os.path.abspath(options.out)
    if os.path.isdir(out):
        return _usage(f"{out} 是文件夹 / is a folder: --out names the zip to write")
    from grader.teacher.edition.packaging import BuildError

    try:
        build(out)
    except BuildError as exc:
        print(f"python -m grader gradescope: 错误 / error:\n  {exc.zh}\n  {exc.en}", file=sys.stderr)
        return exc.code
    print(f"Gradescope autograder: {out}")
    print("上传到 Gradescope（Programming Assignment → Configure Autograder → Zip file upload）")
    print("Upload it to Gradescope (Programming Assignment → Configure Autograder → Zip file upload)")
    return 0


def setup_sh(project: str = PROJECT) -> str:
    from grader.teacher.edition.packaging import tox_base_deps

    deps = tox_base_deps(project)
    torch = next(d for d in deps if d.startswith("torch=="))
    others = " ".join(f'"{d}"' for d in deps if d != torch)
    return SETUP_SH.format(torch=torch, index=TORCH_CPU_INDEX, others=others)


def run_autograder_sh() -> str:
    return RUN_AUTOGRADER.format(timeout=GRADER_TIMEOUT, version=__version__)


def build(out: str, project: str = PROJECT) -> None:
    """Write the bundle to ``out`` (atomically), after checking that the
    solutions score full marks with every check."""
    from grader.teacher.edition import packaging

    packaging.grade_solutions(project, "评分包", "bundle")
    with packaging.staging_folder(out) as stage:
        packaging.write_text(os.path.join(stage, "setup.sh"), setup_sh(project))
        packaging.write_text(os.path.join(stage, "run_autograder"), run_autograder_sh())
        for folder in ("grader", "solutions", os.path.join("checks", "public"), os.path.join("checks", "hidden")):
            packaging.copy_py(os.path.join(project, folder), os.path.join(stage, folder))
        shutil.copyfile(os.path.join(project, "checks", "pytest.ini"), os.path.join(stage, "checks", "pytest.ini"))
        with packaging.zip_into_place(stage, out, executable=frozenset({"setup.sh", "run_autograder"})):
            pass  # nothing else goes into place with it


# - grading inside the bundle -


def find_submission(submission: str) -> tuple[str | None, int]:
    """The folder of the submission with the most exercise files, shallower
    first, ``exercises/`` first among equals; and how many it has. Students
    upload the files themselves, or a folder (or zip) that holds them."""
    best: str | None = None
    best_key: tuple = (0,)
    for dirpath, dirnames, filenames in os.walk(submission):
        rel = os.path.relpath(dirpath, submission)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirnames[:] = sorted(d for d in dirnames if depth < MAX_DEPTH and not d.startswith((".", "__")))
        count = sum(e.filename in filenames or e.notebook in filenames for e in EXERCISES)
        key = (count, -depth, os.path.basename(dirpath) == "exercises")
        if count and key > best_key:
            best, best_key = dirpath, key
    return best, best_key[0]


def received(submission: str, limit: int = 20) -> str:
    """The names of the files in ``submission`` (the first ``limit``), for a message that says what came."""
    names = []
    for dirpath, dirnames, filenames in os.walk(submission):
        dirnames.sort()
        for name in sorted(filenames):
            names.append(os.path.relpath(os.path.join(dirpath, name), submission))
            if len(names) >= limit:
                return ", ".join(names) + ", ..."
    return ", ".join(names) or "（无 / nothing）"


def _no_files(submission: str) -> dict:
    from grader.student.report import ungradable_results

    return ungradable_results(
        "没有找到练习文件：请上传 exercises/ 里你写好的文件（或整个 exercises 文件夹）。",
        "No exercise files found: upload the files you wrote in exercises/ (or the whole exercises folder).",
        f"应有 / expected: {', '.join(e.filename for e in EXERCISES)} (或 / or .ipynb)",
        f"收到 / received: {received(submission)}",
    )


def _crashed() -> dict:
    from grader.student.report import ungradable_results

    return ungradable_results(
        "评分程序出错，暂记 0 分；老师能看到详细情况。",
        "The autograder failed on this submission, so the score is 0 for now; your teacher can see the details.",
    )


def autograde(root: str) -> int:
    """Grade ``root/submission`` into ``root/results/results.json``. Returns 0
    once results.json is written, whatever the score."""
    submission = os.path.join(root, "submission")
    results = os.path.join(root, "results", "results.json")
    try:
        from grader.student import report

        folder, count = find_submission(submission)
        if folder is None:
            print("no exercise files in the submission", flush=True)
            report.write_results(results, _no_files(submission))
            return 0
        rel = os.path.relpath(folder, submission)
        from grader.text import visible

        display = "" if rel == "." else visible(rel, name=True)  # a folder name the student chose
        from grader.engine.grading import Grader

        grader = Grader()
        try:
            grade = grader.grade(folder, display_root=display)
        finally:
            grader.close()
        sys.stdout.write(report.terminal(grade, title=f"Gradescope: submission/{display}"))
        data = report.results_json(grade)
        where = f"{display}/" if display else "（提交的最上层 / the top of the submission）"
        lines = [f"评分的文件夹 / graded folder: {where}  ({count}/{len(EXERCISES)} 个练习文件 / exercise files)"]
        missing = [e.filename for e in EXERCISES if not any(os.path.lexists(os.path.join(folder, name)) for name in (e.filename, e.notebook))]
        if missing:
            lines.append(f"缺少 / missing: {', '.join(missing)}")
        if grade.errors:
            # The details (which may quote hidden checks) go to the teacher only.
            lines.append("评分程序出了问题，部分检查没有运行；老师能看到详细情况。")
            lines.append("The autograder had a problem and some checks did not run; your teacher can see the details.")
        data.update(report.summary("\n".join(lines)))
        report.write_results(results, data)
        return 0
    except BaseException:  # noqa: BLE001 - whatever happened, the student gets a results.json
        traceback.print_exc()
        try:
            from grader.student import report

            report.write_results(results, _crashed())
        except BaseException:  # noqa: BLE001 - whatever ended the grading, Gradescope gets an exit code and the traceback in its log
            traceback.print_exc()
            return 1
        return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2) or argv[0] != "autograde":
        print("usage: python -m grader.teacher.platforms.gradescope autograde [AUTOGRADER_ROOT]", file=sys.stderr)
        return 2
    return autograde(argv[1] if len(argv) == 2 else os.environ.get("AUTOGRADER_ROOT", "/autograder"))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # as grader/__main__.py: no interpreter teardown once the results are written
