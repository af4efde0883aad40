"""PrairieLearn: write the unit as a course fragment with an external grader.

``python -m grader prairielearn --out DIR`` writes, to be copied into a
PrairieLearn course repository:

- ``questions/attention/<id>/``: one question per exercise, ``info.json``
  (``"gradingMethod": "External"`` and ``externalGradingOptions``),
  ``question.html`` (a ``<pl-file-editor>`` holding the starter file,
  ``<pl-external-grader-results>``) and the starter file ``<id>.py``, the
  exercise's stub. One question per exercise, not one for the unit: a
  student hands in and gets feedback exercise by exercise, each question
  keeps its own attempts and score, and a job grades one exercise, well
  inside PrairieLearn's 600 s limit;
- ``serverFilesCourse/attention/``: ``run_grader`` (every question's
  entrypoint), ``grader/``, ``checks/`` (public and hidden) and ``solutions/``.
  PrairieLearn copies it into each job as ``/grade/serverFilesCourse/attention``;
  it stays out of the Docker image, which is pulled from a public registry;
- ``image/Dockerfile``: the grading image, Python with the CPU build of
  PyTorch (PrairieLearn's ``prairielearn/grader-python`` has no torch);
- ``infoAssessment.json``: an example homework of the questions, each worth
  its exercise's points, to copy into a course instance's ``assessments/``.

PrairieLearn runs the entrypoint as root, usually without namespaces (Docker's
default seccomp profile refuses them), with no network. ``run_grader`` makes
every folder of ``/grade`` root's alone while it grades, so that submission
code, run as a user of the grader's own, can read neither the checks nor the
solutions nor the results, and it always leaves a results.json: the guarantees
of the Gradescope bundle (``grader.teacher.platforms.gradescope``). The grading itself is
``grader.teacher.platforms.prairielearn_job``.

Sources: PrairieLearn's docs/externalGrading.md, the question and
assessment schemas (apps/prairielearn/src/schemas/infoQuestion.ts,
infoAssessment.ts; exampleCourse's demo/externalGrading assessment), apps/grader-host/src/index.ts
(how the container is run and results.json read) and
apps/prairielearn/src/lib/externalGraderCommon.ts (how /grade is laid out).
"""

import json
import os
import shutil
import sys
import uuid
from dataclasses import dataclass

from grader import __version__
from grader.exercises import EXERCISES, IDS
from grader.files import PROJECT
from grader.teacher.options import CommandOptions, OptionError, web_address

COURSE = "attention"  # the folder in questions/ and in serverFilesCourse/
DEFAULT_IMAGE = "attention-grader"
TIMEOUT = 240  # seconds, info.json's timeout for one job (PrairieLearn allows up to 600)
GRADER_TIMEOUT = 200  # seconds for the grading inside it: run_grader writes its own results.json before PrairieLearn stops the job
# Fixed, so that the questions keep their UUIDs from one build to the next:
# PrairieLearn knows a question by its UUID.
UUID_NAMESPACE = uuid.UUID("6f0b9d52-5a3e-4c1e-9a57-3d2f4b8e7c10")
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

DOCKERFILE = """\
# The image PrairieLearn grades this course's questions in: Python and the
# CPU build of PyTorch (grading never needs a GPU; PyPI's torch for Linux is a
# CUDA build of several GB). The course itself (grader, checks, solutions) is
# not in it: PrairieLearn copies serverFilesCourse/{course}/ into every job.
#   docker build --platform linux/amd64 -t IMAGE .
#   docker push IMAGE
# No USER line: PrairieLearn runs the entrypoint as root, and the grader runs
# submission code as a user of its own.
FROM python:3.11-slim
# bubblewrap: the grader sandboxes submission code with it where the container allows.
RUN apt-get update \\
    && apt-get install -y --no-install-recommends bubblewrap \\
    && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir {torch} --index-url {index}
RUN pip install --no-cache-dir {others}
RUN python -c 'import torch; print("torch", torch.__version__)'
"""

RUN_GRADER = """\
#!/usr/bin/env bash
# PrairieLearn's entrypoint for every question of the unit:
#   /grade/serverFilesCourse/{course}/run_grader EXERCISE
# It grades EXERCISE's file in /grade/student with every check and always
# leaves /grade/results/results.json, then exits 0 (PrairieLearn reads
# results.json only after an exit status of 0). What it prints goes to the
# job's log, which staff see and students do not.
#
# GRADE_ROOT (default /grade), PYTHON (default python3) and GRADER_TIMEOUT
# (seconds, default {timeout}) can be set to run it elsewhere, e.g. to try it
# on your own machine.
#
# Everything is in functions that bash reads whole before it runs any of
# them, and the line that calls them also exits: whatever is written into
# this file while it runs is never read.
set -u

main() {{
    ROOT="${{GRADE_ROOT:-/grade}}"
    EXERCISE="${{1:-}}"
    COURSE="$ROOT/serverFilesCourse/{course}"
    RESULTS="$ROOT/results/results.json"
    PY="${{PYTHON:-python3}}"
    LIMIT="${{GRADER_TIMEOUT:-{timeout}}}"

    mkdir -p "$ROOT/results"
    rm -f "$RESULTS"
    # PrairieLearn runs this as root, usually without namespaces: submission
    # code runs as a user of the grader's own. While it grades, /grade and
    # every folder in it (the course with its solutions and hidden checks,
    # its copy in shared/, tests/, data/, the submission, the results) are
    # root's alone; the Python installation stays readable.
    mode=$(stat -c %a "$ROOT" 2>/dev/null || echo 755)
    chmod 0700 "$ROOT" "$ROOT"/* 2>/dev/null

    # The grader writes results.json and exits 0; anything else means it did not.
    status=0
    if command -v timeout >/dev/null; then
        (cd "$COURSE" && PYTHONPATH="$COURSE" timeout --kill-after=10 "$LIMIT" "$PY" -m grader.teacher.platforms.prairielearn_job "$ROOT" "$EXERCISE") || status=$?
    else
        (cd "$COURSE" && PYTHONPATH="$COURSE" "$PY" -m grader.teacher.platforms.prairielearn_job "$ROOT" "$EXERCISE") || status=$?
    fi
    if [ "$status" -ne 0 ] || ! valid; then
        fallback
    fi
    # Grading is over and every process of the submission is gone: PrairieLearn
    # reads the results, as whatever user it runs as.
    chmod "$mode" "$ROOT" 2>/dev/null
    chmod 0755 "$ROOT/results" 2>/dev/null
    chmod 0644 "$RESULTS" 2>/dev/null
}}

valid() {{
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(not (d.get("gradable") is False or isinstance(d.get("score"), (int, float))))' "$RESULTS" 2>/dev/null
}}

fallback() {{
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        zh="评分超过了 $LIMIT 秒，没能完成"
        en="Grading took longer than $LIMIT seconds and was stopped"
    else
        zh="评分程序没能完成（状态 $status）"
        en="The grader could not finish grading this submission (status $status)"
    fi
    echo "run_grader: $en; this submission is not gradable" >&2
    rm -f "$RESULTS"
    cat > "$RESULTS" <<EOF
{{
  "gradable": false,
  "format_errors": ["$zh：这次提交没有评分，也不算一次尝试；老师能看到详细情况。", "$en: it is not graded and costs no attempt; your teacher can see the details."],
  "extra_data": {{"grader_version": "{version}"}}
}}
EOF
}}

main "$@"; exit 0
"""


@dataclass(frozen=True)
class PrairieLearnOptions(CommandOptions):
    """What ``python -m grader prairielearn`` is asked to do."""

    out: str  # the folder to write, new or empty
    image: str = DEFAULT_IMAGE  # the grading image's name in info.json
    docs_url: str | None = None  # the course site's full address, for each question's link; None: no link

    def __post_init__(self) -> None:
        self._check_paths("out")
        self._check_names("image")
        if self.docs_url is not None and not web_address(self.docs_url):
            raise OptionError(f"--docs-url 要写课程网站的完整网址（https://...） / takes the course site's full address (https://...), not {self.docs_url!r}")


def _usage(message: str) -> int:
    print(f"python -m grader prairielearn: 错误 / error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    """``python -m grader prairielearn``: argparse's namespace made a ``PrairieLearnOptions`` once, and the questions written."""
    try:
        options = PrairieLearnOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return write_questions(options)


def write_questions(options: PrairieLearnOptions) -> int:
    """Write the course fragment to ``options.out``; the exit code."""
    from grader.teacher.edition.packaging import BuildError

    out = os.path.abspath(options.out)
    if os.path.exists(out) and not (os.path.isdir(out) and not os.listdir(out)):
        return _usage(f"{out} 已存在且不是空文件夹 / exists and is not an empty folder")
    try:
        build(out, image=options.image, docs_url=options.docs_url)
    except BuildError as exc:
        print(f"python -m grader prairielearn: 错误 / error:\n  {exc.zh}\n  {exc.en}", file=sys.stderr)
        return exc.code
    print(f"PrairieLearn: {out}")
    print(f"  questions/{COURSE}/<id>/  serverFilesCourse/{COURSE}/  image/Dockerfile")
    print("把 questions/ 和 serverFilesCourse/ 复制进课程仓库；构建并推送镜像：")
    print("Copy questions/ and serverFilesCourse/ into the course repository; build and push the image:")
    print(f"  docker build --platform linux/amd64 -t {options.image} {os.path.join(options.out, 'image')}")
    print(f"  docker push {options.image}")
    print("每道题的分值 / points per question (the assessment's total is then the grader's):")
    for e in EXERCISES:
        print(f"  {COURSE}/{e.id}: {e.points}")
    return 0


def question_uuid(exercise_id: str) -> str:
    return str(uuid.uuid5(UUID_NAMESPACE, f"{COURSE}/{exercise_id}"))


def info_json(exercise, image: str = DEFAULT_IMAGE) -> dict:
    """The question's info.json (PrairieLearn's infoQuestion schema)."""
    n = IDS.index(exercise.id)
    return {
        "uuid": question_uuid(exercise.id),
        "type": "v3",
        "title": f"练习 {n} {exercise.zh} · Exercise {n}: {exercise.en}",
        "topic": "Self-attention",
        "tags": [COURSE],
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "image": image,
            "entrypoint": f"/grade/serverFilesCourse/{COURSE}/run_grader {exercise.id}",
            "serverFilesCourse": [f"{COURSE}/"],
            "timeout": TIMEOUT,
            "enableNetworking": False,
        },
    }


ASSESSMENT = "infoAssessment.json"  # the example assessment, at the fragment's top


def info_assessment() -> dict:
    """An example assessment of the unit's questions (PrairieLearn's
    infoAssessment schema, apps/prairielearn/src/schemas/infoAssessment.ts;
    its required fields: uuid, type, title, set, number). A homework, one
    zone, each question worth its exercise's points at most
    (``autoPoints`` = ``maxAutoPoints``: a correct answer earns them once,
    a partial one its share of them), so the assessment's total is
    ``grade``'s."""
    return {
        "uuid": str(uuid.uuid5(UUID_NAMESPACE, f"{COURSE}/assessment")),
        "type": "Homework",
        "title": "自注意力练习 · Self-attention exercises",
        "set": "Homework",
        "number": "1",
        "zones": [
            {
                "title": "从加权和到 GPT · From a weighted sum to a GPT",
                "questions": [{"id": f"{COURSE}/{e.id}", "autoPoints": e.points, "maxAutoPoints": e.points} for e in EXERCISES],
            }
        ],
    }


def question_html(exercise, docs_url: str | None = None) -> str:
    from html import escape

    from grader.teacher.edition.course_notebooks import NO_SITE, page_link

    n = IDS.index(exercise.id)
    link = page_link(exercise.id, docs_url or NO_SITE)
    if link is None:
        page = "这一课的页面在课程网站上（网址请问老师）。 / This exercise's page is on the course's site (ask your teacher for its address)."
    else:
        page = f'这一课的页面 / The page: <a href="{escape(link)}" target="_blank">{escape(link)}</a>'
    name = exercise.filename
    return f"""<pl-question-panel>
  <p><strong>练习 {n}：{exercise.zh} · Exercise {n}: {exercise.en}</strong></p>
  <p>{page}</p>
  <p>在下面写完 <code>{name}</code> 的 TODO，然后提交：评分程序用全部检查（公开的和隐藏的）给它评分。
  隐藏检查只显示名称和分数。</p>
  <p>Complete the TODOs of <code>{name}</code> below, then submit: the grader runs every check on it,
  public and hidden. Hidden checks show their names and points only.</p>
  <pl-file-editor file-name="{name}" ace-mode="ace/mode/python" source-file-name="{name}"></pl-file-editor>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def dockerfile(project: str = PROJECT) -> str:
    from grader.teacher.edition.packaging import tox_base_deps

    deps = tox_base_deps(project)
    torch = next(d for d in deps if d.startswith("torch=="))
    others = " ".join(f'"{d}"' for d in deps if d != torch)
    return DOCKERFILE.format(course=COURSE, torch=torch, index=TORCH_CPU_INDEX, others=others)


def run_grader_sh() -> str:
    return RUN_GRADER.format(course=COURSE, timeout=GRADER_TIMEOUT, version=__version__)


def build(out: str, project: str = PROJECT, image: str = DEFAULT_IMAGE, docs_url: str | None = None) -> None:
    """Write the course fragment into ``out`` (a folder that does not exist
    or is empty), after checking that the solutions score full marks with
    every check; all or nothing."""
    from grader.teacher.edition import packaging

    packaging.grade_solutions(project, "PrairieLearn 课程", "PrairieLearn course")
    with packaging.staging_folder(out) as stage:
        for e in EXERCISES:
            q = os.path.join(stage, "questions", COURSE, e.id)
            os.makedirs(q)
            packaging.write_text(os.path.join(q, "info.json"), json.dumps(info_json(e, image), ensure_ascii=False, indent=2) + "\n")
            packaging.write_text(os.path.join(q, "question.html"), question_html(e, docs_url))
            shutil.copyfile(os.path.join(project, "exercises", e.filename), os.path.join(q, e.filename))  # the starter file
        course = os.path.join(stage, "serverFilesCourse", COURSE)
        for folder in ("grader", "solutions", os.path.join("checks", "public"), os.path.join("checks", "hidden")):
            packaging.copy_py(os.path.join(project, folder), os.path.join(course, folder))
        shutil.copyfile(os.path.join(project, "checks", "pytest.ini"), os.path.join(course, "checks", "pytest.ini"))
        packaging.write_text(os.path.join(course, "run_grader"), run_grader_sh())
        os.chmod(os.path.join(course, "run_grader"), 0o755)
        packaging.write_text(os.path.join(stage, ASSESSMENT), json.dumps(info_assessment(), ensure_ascii=False, indent=2) + "\n")
        os.makedirs(os.path.join(stage, "image"))
        packaging.write_text(os.path.join(stage, "image", "Dockerfile"), dockerfile(project))
        if os.path.isdir(out):
            os.rmdir(out)  # empty: checked by run()
        os.rename(stage, out)  # staging_folder has nothing left to remove
