"""The PrairieLearn course fragment (``python -m grader prairielearn``), its
jobs run the way PrairieLearn runs them: ``/grade`` laid out as its
externalGraderCommon.ts ``buildDirectory`` lays it out (``serverFilesCourse/``
and its copy ``shared/``, ``tests/``, ``data/data.json``, ``student/``), in a
folder every user may go through, the entrypoint of info.json run as root
with bubblewrap hidden (as PrairieLearn's containers: root, usually no
namespaces), ``GRADE_ROOT`` in place of ``/grade``. Docker is not run: this
environment already has torch.

Every job is run once, by ``run_jobs``, and the tests read their outcomes:
in the background while the tests before this file run (``EARLY``:
tests/support/early.py), or two at a time when this file's turn comes."""

import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, grade_cli, make_submission, points_by_exercise
from early import Early, environ
from readme_sections import Shell, blocks, commands
from test_attacks import FULL, attack_source, kill_and_reap, leaked_lines, wait_for_none

from grader.exercises import BY_ID, IDS, TOTAL
from grader.teacher.platforms import prairielearn
from grader.teacher.platforms.prairielearn_job import fit

WRONG = pathlib.Path(ROOT, "tests", "catalogue", "wrong")
IMAGE = "yourname/attention-grader"  # as the docs page's command names it
DOCS_PAGE = pathlib.Path(ROOT, "docs", "teachers", "prairielearn.md")
TITLE = "PrairieLearn external grading"  # the page's title: blocks() of the whole page
AS_ROOT = os.geteuid() == 0 or bool(os.environ.get("ATTENTION_CI"))


# - the fragment, built by the docs page's command as written ---------------


def build(cwd: pathlib.Path) -> tuple:
    """docs/teachers/prairielearn.md's commands, run as written in an empty folder
    (the docker ones cannot run here: ``test_docker_commands_name_the_image``)."""
    shell = Shell(cwd)
    procs = [shell.run(argv) for argv in commands(blocks(TITLE, "bash", DOCS_PAGE)[0])]
    return cwd, procs[-1]


def build_and_run(folder: pathlib.Path, background: bool) -> tuple:
    """The fragment built, then (as root) every job: one at a time in the
    background, where the tests running meanwhile keep one processor
    busy, two at a time in the foreground."""
    built = build(folder)
    return built, (run_jobs(built[0] / "prairielearn", workers=1 if background else 2) if AS_ROOT else None)


EARLY = Early(build_and_run)  # started by conftest.py once the attack catalogue is graded


@pytest.fixture(scope="module")
def early(tmp_path_factory):
    made = EARLY.result(tmp_path_factory.mktemp("pl"))
    yield made
    for job in (made[1] or {}).values():
        if isinstance(job, Job):
            job.close()


@pytest.fixture(scope="module")
def built(early):
    return early[0]


@pytest.fixture(scope="module")
def fragment(built) -> pathlib.Path:
    return built[0] / "prairielearn"


def test_layout(fragment):
    assert sorted(os.listdir(fragment)) == ["image", "infoAssessment.json", "questions", "serverFilesCourse"]
    assert sorted(os.listdir(fragment / "questions" / "attention")) == sorted(IDS)
    for ex in IDS:
        q = fragment / "questions" / "attention" / ex
        assert sorted(os.listdir(q)) == sorted(["info.json", "question.html", f"{ex}.py"])
        assert (q / f"{ex}.py").read_bytes() == pathlib.Path(EXERCISES, f"{ex}.py").read_bytes()  # the starter is the stub
    course = fragment / "serverFilesCourse" / "attention"
    assert os.access(course / "run_grader", os.X_OK)
    for ex in IDS:
        assert (course / "solutions" / f"{ex}.py").is_file() and (course / "checks" / "hidden" / f"test_{ex}.py").is_file()
    assert (course / "grader" / "teacher" / "platforms" / "prairielearn_job.py").is_file()
    # Nothing of the course in the image's folder: it is pushed to a public registry.
    assert os.listdir(fragment / "image") == ["Dockerfile"]


# Fields and types of PrairieLearn's question schema
# (apps/prairielearn/src/schemas/infoQuestion.ts: both objects are strict).
QUESTION_FIELDS = {"uuid": str, "type": str, "title": str, "topic": str, "tags": list, "singleVariant": bool, "gradingMethod": str, "externalGradingOptions": dict}
GRADING_FIELDS = {"image": str, "entrypoint": (str, list), "serverFilesCourse": list, "timeout": int, "enableNetworking": bool}


def test_info_json(fragment):
    uuids = set()
    for ex in IDS:
        info = json.loads((fragment / "questions" / "attention" / ex / "info.json").read_text(encoding="utf-8"))
        assert {"uuid", "type", "title", "topic"} <= set(info) <= set(QUESTION_FIELDS)
        assert all(isinstance(info[k], QUESTION_FIELDS[k]) for k in info)
        options = info["externalGradingOptions"]
        assert set(options) <= set(GRADING_FIELDS) and all(isinstance(options[k], GRADING_FIELDS[k]) for k in options)
        assert info["type"] == "v3" and info["gradingMethod"] == "External"
        assert options["image"] == IMAGE
        assert options["entrypoint"] == f"/grade/serverFilesCourse/attention/run_grader {ex}"
        assert options["serverFilesCourse"] == ["attention/"]
        assert 0 < options["timeout"] <= 600 and options["enableNetworking"] is False
        assert prairielearn.GRADER_TIMEOUT < options["timeout"]  # run_grader answers before PrairieLearn stops the job
        uuids.add(info["uuid"])
        assert BY_ID[ex].en in info["title"] and BY_ID[ex].zh in info["title"]
    assert len(uuids) == len(IDS)
    assert uuids == {prairielearn.question_uuid(ex) for ex in IDS}  # the same in every build


def test_question_page(fragment):
    for ex in IDS:
        page = (fragment / "questions" / "attention" / ex / "question.html").read_text(encoding="utf-8")
        assert f'<pl-file-editor file-name="{ex}.py"' in page and f'source-file-name="{ex}.py"' in page
        assert "<pl-external-grader-results>" in page.split("<pl-submission-panel>")[1]
        # The page's command gives --docs-url: each question links its exercise's page.
        assert f'href="https://yourname.github.io/attention/path/{ex}.html"' in page and "ask your teacher" not in page


def test_the_example_assessment_adds_up_as_grade_does(fragment):
    """infoAssessment.json: PrairieLearn's required fields (apps/prairielearn/src/schemas/infoAssessment.ts:
    uuid, type, title, set, number; zones of questions, each an id of a
    question there), every question once, each worth its exercise's points."""
    data = json.loads((fragment / "infoAssessment.json").read_text(encoding="utf-8"))
    assert {"uuid", "type", "title", "set", "number"} <= set(data) and data["type"] in ("Homework", "Exam")
    assert all(isinstance(data[k], str) and data[k] for k in ("uuid", "type", "title", "set", "number"))
    questions = [q for zone in data["zones"] for q in zone["questions"]]
    assert [q["id"] for q in questions] == [f"attention/{ex}" for ex in IDS]
    assert all((fragment / "questions" / q["id"] / "info.json").is_file() for q in questions)
    assert {q["id"].split("/")[1]: (q["autoPoints"], q["maxAutoPoints"]) for q in questions} == {ex: (BY_ID[ex].points, BY_ID[ex].points) for ex in IDS}
    assert sum(q["maxAutoPoints"] for q in questions) == TOTAL
    uuids = {json.loads((fragment / "questions" / "attention" / ex / "info.json").read_text(encoding="utf-8"))["uuid"] for ex in IDS}
    assert data["uuid"] not in uuids  # PrairieLearn's uuids are unique across the course


def test_without_docs_url_a_question_says_to_ask(tmp_path):
    page = prairielearn.question_html(BY_ID["ex4_masking"])
    assert "ask your teacher" in page and "href=" not in page.split("<pl-question-panel>")[1].split("</pl-question-panel>")[0]


def test_docs_url_links_each_page(tmp_path):
    from types import SimpleNamespace

    page = prairielearn.question_html(BY_ID["ex4_masking"], "https://course.example.org/attention/")
    assert 'href="https://course.example.org/attention/path/ex4_masking.html"' in page
    args = SimpleNamespace(out=str(tmp_path / "x"), image=IMAGE, docs_url="course.example.org")
    assert prairielearn.run(args) == 2 and not (tmp_path / "x").exists()


def test_dockerfile_has_the_cpu_torch_and_no_course(fragment):
    import configparser

    text = (fragment / "image" / "Dockerfile").read_text(encoding="utf-8")
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(os.path.join(ROOT, "tox.ini"), encoding="utf-8")
    deps = tox["base"]["deps"].split()
    torch = next(d for d in deps if d.startswith("torch=="))
    assert f"pip install --no-cache-dir {torch} --index-url https://download.pytorch.org/whl/cpu" in text
    assert all(d in text for d in deps)
    assert re.search(r"^FROM python:3\.1[1-9]", text, re.MULTILINE)
    assert not re.search(r"^(COPY|ADD|USER)\b", text, re.MULTILINE)  # no course files in it; PrairieLearn's root runs it


def test_refuses_a_folder_that_is_not_empty(tmp_path):
    from conftest import run_cli

    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    proc = run_cli("prairielearn", "--out", str(tmp_path / "taken"))
    assert proc.returncode == 2 and "not an empty folder" in proc.stderr and "不是空文件夹" in proc.stderr
    assert os.listdir(tmp_path / "taken") == ["notes.txt"]


def test_the_pages_commands_are_the_ones_run(built, fragment):
    """The docs page has two bash blocks: the fragment's command, which
    ``built`` runs as written, and the docker commands (Docker is not here),
    which build the folder the first command wrote and push the image its
    info.json names; the command says what to do next."""
    from docs_site import markdown_tokens

    said = blocks(TITLE, "bash", DOCS_PAGE)
    page = [t.content for t in markdown_tokens(DOCS_PAGE.read_text(encoding="utf-8")) if t.type == "fence" and t.info.strip() == "bash"]
    assert page == said and len(page) == 2
    docker = commands(said[1])
    assert docker == [["docker", "build", "--platform", "linux/amd64", "-t", IMAGE, "prairielearn/image"], ["docker", "push", IMAGE]]
    assert (built[0] / docker[0][-1] / "Dockerfile").is_file()
    out = built[1].stdout
    assert "docker build --platform linux/amd64 -t yourname/attention-grader prairielearn/image" in out
    assert "attention/ex6_block: 17" in out and "serverFilesCourse" in out


# - jobs, as PrairieLearn runs them -------------------------------------------

# A thief: finds /grade from the grader's command line (world-readable in
# /proc) and runs the reference solution from wherever PrairieLearn put a
# copy: serverFilesCourse/, its deprecated copy shared/, the question's tests/.
THIEF = """
import glob, os
ROOT = "/grade"
for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        args = open(cmdline, "rb").read().decode(errors="replace").split("\\0")
    except OSError:
        continue
    if "grader.teacher.platforms.prairielearn_job" in args:
        ROOT = args[args.index("grader.teacher.platforms.prairielearn_job") + 1]
NAME = os.path.basename(__file__)
for place in (("serverFilesCourse", "attention", "solutions"), ("shared", "attention", "solutions"), ("tests",)):
    try:
        exec(open(os.path.join(ROOT, *place, NAME), encoding="utf-8").read())
        break
    except OSError as exc:
        print("stealing", place[0], type(exc).__name__, flush=True)
"""

# Another: walks every folder of the job for the hidden checks and raises
# their text, to have it shown back.
HIDDEN_THIEF = """
import os
ROOT = "/grade"
found = []
for cmdline in os.listdir("/proc"):
    try:
        args = open("/proc/%s/cmdline" % cmdline, "rb").read().decode(errors="replace").split("\\0")
    except OSError:
        continue
    if "grader.teacher.platforms.prairielearn_job" in args:
        ROOT = args[args.index("grader.teacher.platforms.prairielearn_job") + 1]
errors = []
for dirpath, dirnames, filenames in os.walk(ROOT, onerror=lambda e: errors.append(type(e).__name__)):
    for name in filenames:
        if name.startswith("test_") or name == "data.json":
            found.append(open(os.path.join(dirpath, name), encoding="utf-8").read())


def weighted_sum(scores, values):
    raise RuntimeError("found %d files (%s):\\n%s" % (len(found), ",".join(errors), "\\n".join(found)))
"""

# A forger: writes a full score into /grade/results/results.json at import
# and at every call, and leaves a daemon that keeps writing it for a minute.
FORGER = """
import ctypes, json, os, signal, time
import torch
TAG = "__ATTACK_TAG__"
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)
os.environ["ATTACK_TAG"] = TAG
ROOT = "/grade"
for pid in os.listdir("/proc"):
    try:
        args = open("/proc/%s/cmdline" % pid, "rb").read().decode(errors="replace").split("\\0")
    except OSError:
        continue
    if "grader.teacher.platforms.prairielearn_job" in args:
        ROOT = args[args.index("grader.teacher.platforms.prairielearn_job") + 1]
FAKE = json.dumps({"gradable": True, "score": 1.0, "tests": [{"name": "forged", "points": 1, "max_points": 1}]})
PATH = os.path.join(ROOT, "results", "results.json")


def forge():
    try:
        os.makedirs(os.path.dirname(PATH), exist_ok=True)
        with open(PATH, "w") as f:
            f.write(FAKE)
        print("forged", flush=True)
    except OSError as exc:
        print("forging", type(exc).__name__, flush=True)


forge()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            forge()
            time.sleep(0.05)
    os._exit(0)


def averaging_matrix(T, dtype=torch.float64):
    forge()
    return torch.zeros(T, T, dtype=dtype)


def average_past(x):
    forge()
    return torch.zeros_like(x)
"""

# Another: everything of run_grader after the line bash is running becomes
# code that writes a full score once the grader exits, unless bash has read
# it all before.
REWRITER = """
import glob, os
for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
    args = open(cmdline, "rb").read().decode(errors="replace").split("\\0")
    if "grader.teacher.platforms.prairielearn_job" in args:
        root = args[args.index("grader.teacher.platforms.prairielearn_job") + 1]
        script = os.path.join(root, "serverFilesCourse", "attention", "run_grader")
        text = open(script).read()
        cut = text.index("\\n", text.rindex("grader.teacher.platforms.prairielearn_job")) + 1
        payload = "echo '{\\"gradable\\": true, \\"score\\": 1}' > " + root + "/results/results.json; exit 0\\n"
        with open(script, "r+") as f:
            f.seek(cut)
            f.write((payload * (1 + (len(text) - cut) // len(payload)))[: max(len(text) - cut, len(payload))])
        break
"""

# The catalogue's attacks that apply to root without namespaces in this
# layout (tests/attacks/): stealing solutions and hidden checks, faking
# results, killing the grader, leaving processes, rewriting the course.
# (Not ex0_weighted_sum__solutions_walk: it finds the copies every user may
# read outside /grade, this checkout and the fragment the test built, which
# a PrairieLearn container does not have; THIEF walks /grade.)
CATALOGUE = {
    "ex0_weighted_sum__solutions_by_grader_path": 0,
    "ex0_weighted_sum__hidden_checks_print": 0,
    "ex0_weighted_sum__fake_results_json": 0,
    "ex0_weighted_sum__write_grader_folders": 0,
    "ex0_weighted_sum__kill_parent": FULL,
    "ex0_weighted_sum__kill_zygote": FULL,
    "ex0_weighted_sum__kill_all": FULL,
    "ex0_weighted_sum__double_fork_daemon": FULL,
}
MISTAKES = ("ex4_masking__minus_1e9", "ex3_scaling__in_place_mul")
STUBBED = ("ex0_weighted_sum", "ex6_block")


def _solution(ex: str) -> str:
    return pathlib.Path(SOLUTIONS, f"{ex}.py").read_text(encoding="utf-8")


def cases() -> dict:
    """name -> (exercise, {file name in student/: its text or bytes})."""
    out = {f"solution-{ex}": (ex, {f"{ex}.py": _solution(ex)}) for ex in IDS}
    out |= {f"stub-{ex}": (ex, {f"{ex}.py": pathlib.Path(EXERCISES, f"{ex}.py").read_text(encoding="utf-8")}) for ex in STUBBED}
    for name in MISTAKES:
        ex = name.split("__")[0]
        out[f"mistake-{ex}"] = (ex, {f"{ex}.py": (WRONG / f"{name}.py").read_text(encoding="utf-8")})
    out["thief-ex2_scores"] = ("ex2_scores", {"ex2_scores.py": THIEF})
    out["thief-ex5_head"] = ("ex5_head", {"ex5_head.py": THIEF})
    out["hidden-thief"] = ("ex0_weighted_sum", {"ex0_weighted_sum.py": HIDDEN_THIEF})
    out["forger"] = ("ex1_averaging", {"ex1_averaging.py": FORGER})
    out["rewriter"] = ("ex0_weighted_sum", {"ex0_weighted_sum.py": REWRITER})
    out["broken-syntax"] = ("ex0_weighted_sum", {"ex0_weighted_sum.py": "def weighted_sum(scores, values:\n    return 0\n"})
    out["broken-indent"] = ("ex2_scores", {"ex2_scores.py": "import torch\ndef attention_scores(q, k):\nreturn q @ k.T\n"})
    out["broken-encoding"] = ("ex1_averaging", {"ex1_averaging.py": "x = '平均'\n".encode("gbk")})
    out["broken-missing"] = ("ex3_scaling", {"notes.txt": "I forgot the file"})
    for attack in CATALOGUE:
        out[attack] = (attack.split("__")[0], {})  # filled in per job: the placeholders
    return out


def lay_out(fragment: pathlib.Path, files: dict) -> pathlib.Path:
    """A /grade of a job, in a new folder of /tmp every user may go through
    (as PrairieLearn's bind mount is), as root lays it out with umask 022,
    with a ``bin`` beside it: the system's programs but bubblewrap."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="pl-job-", dir="/tmp"))
    os.chmod(base, 0o755)
    root = base / "grade"
    course = fragment / "serverFilesCourse"
    for copy in ("serverFilesCourse", "shared"):  # shared/: PrairieLearn's deprecated copy, still made
        shutil.copytree(course, root / copy)
    (root / "tests").mkdir()
    for ex in IDS:  # a question's tests/ may hold anything: here, the answers
        (root / "tests" / f"{ex}.py").write_text(_solution(ex), encoding="utf-8")
    (root / "data").mkdir()
    (root / "data" / "data.json").write_text(json.dumps({"params": {}, "submitted_answers": {}}), encoding="utf-8")
    (root / "student").mkdir()
    for name, text in files.items():
        (root / "student" / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    for dirpath, dirnames, _ in os.walk(base):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
    bin_dir = base / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/bin", "/bin"):
        for name in os.listdir(folder):
            if name != "bwrap" and not os.path.lexists(bin_dir / name):
                os.symlink(os.path.join(folder, name), bin_dir / name)
    return root


def run_job(root: pathlib.Path, exercise: str, **env) -> tuple[dict, subprocess.CompletedProcess]:
    """The question's entrypoint, as info.json gives it, /grade being ``root``."""
    base = {k: v for k, v in environ().items() if k != "PYTHONPATH"}  # made early, too
    base.update(GRADE_ROOT=str(root), PYTHON=sys.executable, PYTHONDONTWRITEBYTECODE="1", PATH=str(root.parent / "bin"))
    base.update(env)
    argv = [str(root / "serverFilesCourse" / "attention" / "run_grader"), exercise]  # run as PrairieLearn runs it, by its #!
    proc = subprocess.run(argv, cwd="/", env=base, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with open(root / "results" / "results.json", encoding="utf-8") as f:
        return json.load(f), proc


def _tree_hash(folder: pathlib.Path) -> dict:
    out = {}
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


class Job:
    def __init__(self, fragment, name, exercise, files):
        self.name, self.exercise = name, exercise
        self.tag = "pl" + secrets.token_hex(6)
        if not files:  # a catalogue attack
            self.root = lay_out(fragment, {})
            source = attack_source(name, self.tag, str(self.root.parent), 0)
            (self.root / "student" / f"{exercise}.py").write_bytes(source)
        else:
            self.root = lay_out(fragment, files)
        self.course_before = _tree_hash(self.root / "serverFilesCourse")
        self.results, self.proc = run_job(self.root, exercise)
        self.survivors = wait_for_none(self.tag)
        kill_and_reap(self.survivors)
        self.course_after = _tree_hash(self.root / "serverFilesCourse")
        with open(self.root / "results" / "results.json", encoding="utf-8") as f:
            self.results_later = json.load(f)  # read again once whatever the job started had its chance
        self.modes = {p: oct(os.stat(self.root / p).st_mode & 0o777) for p in ("", "results", "serverFilesCourse", "shared", "tests")}

    def close(self):
        shutil.rmtree(self.root.parent, ignore_errors=True)


def run_jobs(fragment: pathlib.Path, workers: int) -> dict:
    """Every case's job, ``workers`` at a time: its name -> the Job, or the exception it raised."""
    done = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(Job, fragment, name, ex, files) for name, (ex, files) in cases().items()}
        for name, future in futures.items():
            try:
                done[name] = future.result()
            except Exception as exc:  # noqa: BLE001 - the test that reads this job fails with it
                done[name] = exc
    return done


@pytest.fixture(scope="module")
def jobs(early):
    if not AS_ROOT:
        pytest.skip("needs root, as PrairieLearn runs its containers")
    return early[1]


def job(jobs, name) -> Job:
    got = jobs[name]
    if isinstance(got, BaseException):
        raise got
    assert "grader.engine.sandbox" not in got.proc.stderr
    return got


def _valid(results: dict) -> dict:
    """What PrairieLearn requires of results.json (docs/externalGrading.md):
    a score from 0 to 1 when gradable, format_errors when not; tests with
    both points and max_points; under 1 MB."""
    assert len(json.dumps(results).encode()) < 1 << 20
    if results.get("gradable") is False:
        assert isinstance(results["format_errors"], list) and results["format_errors"]
        return results
    assert results["gradable"] is True and 0 <= results["score"] <= 1
    for t in results["tests"]:
        assert {"name", "points", "max_points", "message", "output"} <= set(t)
        assert 0 <= t["points"] <= t["max_points"]
    return results


def _score(results: dict) -> float:
    return round(results["score"], 9)


# - scores, as `python -m grader grade` gives them -----------------------------


def test_solutions_score_1_and_equal_grade(jobs, tmp_path):
    grade_results, _ = grade_cli(make_submission(tmp_path / "solutions"))
    points = points_by_exercise(grade_results)
    for ex in IDS:
        j = job(jobs, f"solution-{ex}")
        results = _valid(j.results)
        assert _score(results) == 1.0, (ex, j.proc.stdout[-3000:])
        assert sum(t["points"] for t in results["tests"]) == points[ex] == BY_ID[ex].points
        assert "unconfined" not in results["extra_data"], results["extra_data"]
        hidden = [t for t in results["tests"] if t["name"].startswith("隐藏 / hidden: ")]
        assert hidden and len(hidden) < len(results["tests"])
        assert f"{BY_ID[ex].points} / {BY_ID[ex].points}" in j.proc.stdout  # the full report, for the job's log
        assert j.modes[""] == "0o755" and j.modes["results"] == "0o755"  # PrairieLearn reads them, as whatever user
        assert j.modes["serverFilesCourse"] == j.modes["shared"] == j.modes["tests"] == "0o700"


def test_stubs_score_0_and_equal_grade(jobs, tmp_path):
    grade_results, _ = grade_cli(make_submission(tmp_path / "stubs", base=EXERCISES))
    points = points_by_exercise(grade_results)
    for ex in STUBBED:
        results = _valid(job(jobs, f"stub-{ex}").results)
        assert results["score"] == 0 == points[ex]
        assert all("not implemented yet" in t["output"] for t in results["tests"] if not t["name"].startswith("隐藏"))


def test_catalogue_mistakes_score_as_grade_does(jobs, tmp_path):
    """Partly right: PrairieLearn's fraction times the exercise's points is
    what `python -m grader grade` gives the same file."""
    replace = {name.split("__")[0]: (WRONG / f"{name}.py").read_text(encoding="utf-8") for name in MISTAKES}
    grade_results, _ = grade_cli(make_submission(tmp_path / "wrong", replace))
    points = points_by_exercise(grade_results)
    for ex in replace:
        results = _valid(job(jobs, f"mistake-{ex}").results)
        assert 0 < results["score"] < 1
        assert round(results["score"] * BY_ID[ex].points, 6) == points[ex]
        failed = [t for t in results["tests"] if t["points"] < t["max_points"]]
        shown = [t for t in failed if not t["name"].startswith("隐藏")]
        hidden = [t for t in failed if t["name"].startswith("隐藏")]
        assert all("得到 / got" in t["output"] or "期望 / expected" in t["output"] or t["output"] for t in shown)
        # A hidden check shows its name and points, never its inputs.
        assert all("得到 / got" not in t["output"] and "hidden check" in t["output"] for t in hidden)


# - files that cannot be graded ------------------------------------------------


@pytest.mark.parametrize(
    "name, said",
    [
        ("broken-syntax", "syntax error in ex0_weighted_sum.py, line 1"),
        ("broken-indent", "syntax error in ex2_scores.py, line 3"),
        ("broken-encoding", "ex1_averaging.py is not UTF-8"),
        ("broken-missing", "file not found: ex3_scaling.py"),
    ],
)
def test_a_file_that_cannot_be_read_is_not_gradable(jobs, name, said):
    j = job(jobs, name)
    results = _valid(j.results)
    assert results["gradable"] is False and "score" not in results
    errors = "\n".join(results["format_errors"])
    assert said in errors
    if "syntax" in said:
        assert "语法错误" in errors
    if name == "broken-missing":
        assert "notes.txt" in errors  # what came instead


# - attacks: root without namespaces -------------------------------------------


@pytest.mark.parametrize("name", ["thief-ex2_scores", "thief-ex5_head"])
def test_a_solution_thief_scores_0(jobs, name):
    j = job(jobs, name)
    results = _valid(j.results)
    assert results["score"] == 0, j.proc.stdout[-3000:]
    # It found /grade, and each copy of the solutions was refused to it.
    assert j.proc.stdout.count("PermissionError") >= 3, j.proc.stdout[-3000:]


def test_the_hidden_checks_stay_hidden(jobs):
    j = job(jobs, "hidden-thief")
    results = _valid(j.results)
    assert results["score"] == 0
    assert "found 0 files (PermissionError" in json.dumps(results, ensure_ascii=False)
    assert not leaked_lines(json.dumps(results, ensure_ascii=False))


@pytest.mark.parametrize("name", ["forger", "rewriter"])
def test_a_results_forger_scores_0(jobs, name):
    j = job(jobs, name)
    for results in (j.results, j.results_later):
        results = _valid(results)
        assert results["score"] == 0 and results["tests"], results
        assert "forged" not in json.dumps(results)
    assert j.course_before == j.course_after  # run_grader as it was
    assert "PermissionError" in j.proc.stdout
    assert not j.survivors


@pytest.mark.parametrize("attack", sorted(CATALOGUE))
def test_catalogue_attacks_hold(jobs, attack):
    j = job(jobs, attack)
    results = _valid(j.results)
    assert results.get("gradable") is True
    assert _score(results) == (1.0 if CATALOGUE[attack] == FULL else 0.0), (attack, j.proc.stdout[-3000:])
    assert _valid(j.results_later) == results  # nothing wrote it after the grader
    assert not j.survivors, attack
    assert j.course_before == j.course_after, attack
    assert not leaked_lines(json.dumps(results, ensure_ascii=False) + j.proc.stdout)


def test_answers_left_for_a_later_job_are_gone(fragment):
    """The catalogue's attack across students: one job leaves its answers in
    every sticky folder every user may write; the next job's code (a stub
    but for loading them) finds none of it."""
    if not AS_ROOT:
        pytest.skip("needs root, as PrairieLearn runs its containers")
    from test_attacks import make_sticky

    attack, ex = "ex3_scaling__answers_in_every_sticky_folder", "ex3_scaling"
    made = make_sticky()
    tag = "pl" + secrets.token_hex(6)
    roots = []
    try:
        for role in ("writer", "loader"):
            root = lay_out(fragment, {})
            roots.append(root)
            (root / "student" / f"{ex}.py").write_bytes(attack_source(attack, tag, str(root.parent), 0, role))
            results, proc = run_job(root, ex)
            assert _valid(results)["score"] == 0, (role, proc.stdout[-3000:])
            if role == "writer":
                assert "STASHED:" in json.dumps(results, ensure_ascii=False)
    finally:
        for root in roots:
            shutil.rmtree(root.parent, ignore_errors=True)
        for path in made:
            shutil.rmtree(path, ignore_errors=True)


# - what goes wrong around the grader ------------------------------------------


def test_a_grader_that_cannot_start_still_answers(fragment):
    if not AS_ROOT:
        pytest.skip("needs root, as PrairieLearn runs its containers")
    root = lay_out(fragment, {"ex0_weighted_sum.py": _solution("ex0_weighted_sum")})
    try:
        (root / "results").mkdir()
        (root / "results" / "results.json").write_text('{"score": 1}', encoding="utf-8")  # stale: must not survive
        results, proc = run_job(root, "ex0_weighted_sum", PYTHON="/bin/false")
        assert _valid(results)["gradable"] is False
        assert "could not finish" in results["format_errors"][1] and "老师" in results["format_errors"][0]
        results, proc = run_job(root, "ex9_nothing")
        assert _valid(results)["gradable"] is False and "grader failed" in results["format_errors"][1]
        assert "ex9_nothing" in proc.stderr  # the details are for the job's log
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def test_grading_that_takes_too_long_is_stopped(fragment):
    if not AS_ROOT:
        pytest.skip("needs root, as PrairieLearn runs its containers")
    root = lay_out(fragment, {"ex0_weighted_sum.py": _solution("ex0_weighted_sum")})
    try:
        results, _ = run_job(root, "ex0_weighted_sum", GRADER_TIMEOUT="1")
        assert _valid(results)["gradable"] is False and "longer than 1 seconds" in results["format_errors"][1]
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def test_results_are_cut_to_fit():
    tests = [{"name": f"t{i}", "points": 0, "max_points": 1, "message": "", "output": "x" * 300_000} for i in range(6)]
    data = fit({"gradable": True, "score": 0, "message": "m", "tests": tests})
    assert len(json.dumps(data, indent=2).encode()) < 1_000_000
    assert len(data["tests"]) == 6 and all(t["output"].endswith("too long, cut here）") for t in data["tests"])
