"""The Gradescope bundle (``python -m grader gradescope``), run the way
Gradescope runs it: unpacked in AUTOGRADER_ROOT/source, run_autograder
copied to AUTOGRADER_ROOT, the submission in AUTOGRADER_ROOT/submission.
setup.sh is not run: this environment already has torch."""

import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, make_submission, run_cli
from results_schema import RESULTS_SCHEMA, valid

from grader import __version__
from grader.engine.grading import Grade
from grader.engine.plugin import CheckResult
from grader.exercises import IDS, TOTAL
from grader.student import report
from grader.teacher.platforms.gradescope import find_submission, run_autograder_sh


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    proc = run_cli("gradescope", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture
def autograder(bundle, tmp_path):
    """A fake /autograder with the bundle installed and an empty submission folder."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    return root


def run_autograder(root, **env) -> tuple[dict, subprocess.CompletedProcess]:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    base.update(AUTOGRADER_ROOT=str(root), PYTHON=sys.executable, PYTHONDONTWRITEBYTECODE="1")
    base.update(env)
    proc = subprocess.run(["bash", str(root / "run_autograder")], cwd=root, env=base, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(root / "results" / "results.json", encoding="utf-8") as f:
        return valid(json.load(f)), proc


def test_bundle_layout(bundle):
    with zipfile.ZipFile(bundle) as z:
        infos = {i.filename: i for i in z.infolist()}
    names = set(infos)
    for script in ("setup.sh", "run_autograder"):
        assert script in names  # at the root of the zip, as Gradescope requires
        assert (infos[script].external_attr >> 16) & stat.S_IXUSR
    for ex in IDS:
        assert {f"solutions/{ex}.py", f"checks/public/test_{ex}.py", f"checks/hidden/test_{ex}.py"} <= names
    assert {"checks/pytest.ini", "grader/__main__.py", "grader/teacher/platforms/gradescope.py"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.startswith(("tests/", "exercises/", "bench/", "."))]
    assert not [p for p in os.listdir(bundle.parent) if p != bundle.name]  # written atomically: no temporary files left


def test_scripts_are_plain_bash_with_the_cpu_torch(bundle, tmp_path):
    import configparser

    with zipfile.ZipFile(bundle) as z:
        setup = z.read("setup.sh").decode()
        run = z.read("run_autograder").decode()
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(os.path.join(ROOT, "tox.ini"), encoding="utf-8")
    deps = tox["base"]["deps"].split()
    torch = next(d for d in deps if d.startswith("torch=="))
    assert f"install --no-cache-dir {torch} --index-url https://download.pytorch.org/whl/cpu" in setup
    assert all(d in setup for d in deps)
    assert "apt-get install" in setup
    for name, text in (("setup.sh", setup), ("run_autograder", run)):
        assert text.startswith("#!/usr/bin/env bash\n")
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert subprocess.run(["bash", "-n", str(path)]).returncode == 0, name


@pytest.mark.parametrize("layout", ["top", "exercises"])
def test_solutions_score_100(autograder, layout):
    make_submission(autograder / "submission" / ("" if layout == "top" else "exercises"))
    results, proc = run_autograder(autograder)
    assert results["score"] == TOTAL
    assert all(t["status"] == "passed" for t in results["tests"])
    assert {t["visibility"] for t in results["tests"] if t["tags"][1] == "hidden"} == {"after_published"}
    assert {t["tags"][1] for t in results["tests"]} == {"public", "hidden"}
    assert ("exercises/" in results["output"]) == (layout == "exercises")
    assert f"{TOTAL} / {TOTAL}" in proc.stdout  # the full report, for the teacher
    assert results["visibility"] == "after_published"  # the total tells how the hidden checks went


def test_broken_file_scores_0_and_says_why(autograder):
    folder = make_submission(autograder / "submission", base=EXERCISES)
    with open(os.path.join(folder, "ex0_weighted_sum.py"), "w", encoding="utf-8") as f:
        f.write("def weighted_sum(scores, values:\n    return 0\n")
    results, _ = run_autograder(autograder)
    assert results["score"] == 0
    ex0 = [t for t in results["tests"] if t["tags"][0] == "ex0_weighted_sum"]
    assert ex0 and all("syntax error in ex0_weighted_sum.py, line 1" in t["output"] for t in ex0)
    assert all("not implemented yet" in t["output"] for t in results["tests"] if t["tags"][0] != "ex0_weighted_sum")


def test_some_files_missing(autograder):
    shutil.copy(os.path.join(SOLUTIONS, "ex2_scores.py"), autograder / "submission")
    results, _ = run_autograder(autograder)
    assert results["score"] == sum(t["max_score"] for t in results["tests"] if t["tags"][0] == "ex2_scores") > 0
    assert "missing: ex0_weighted_sum.py" in results["output"]
    assert "file not found: ex0_weighted_sum.py" in next(t["output"] for t in results["tests"] if t["tags"][0] == "ex0_weighted_sum")


def test_empty_submission_scores_0_and_says_what_to_upload(autograder):
    (autograder / "submission" / "notes.txt").write_text("hello", encoding="utf-8")
    results, _ = run_autograder(autograder)
    assert results["score"] == 0 and results["tests"] == []
    assert "No exercise files found" in results["output"] and "ex4_masking.py" in results["output"]
    assert "notes.txt" in results["output"]
    assert results["output"].startswith(report.UNGRADABLE + "\n")
    assert results["visibility"] == "visible"  # nothing hidden to wait for


def test_schema_refuses_what_gradescope_does_not_read():
    import jsonschema

    good = {"score": 1, "tests": [{"score": 1, "max_score": 1, "status": "passed", "visibility": "visible"}]}
    jsonschema.validate(good, RESULTS_SCHEMA)
    for bad in (
        {**good, "stdout_visiblity": "hidden"},
        {**good, "visibility": "after_publish"},
        {"tests": [{"max_score": 1}]},
        {**good, "tests": [{**good["tests"][0], "status": "pass"}]},
        {**good, "tests": [{**good["tests"][0], "number": 3.2}]},
        {**good, "tests": [{**good["tests"][0], "output_fromat": "text"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, RESULTS_SCHEMA)


def _result(exercise, check_id, hidden, passed, feedback=""):
    return CheckResult(exercise, f"{check_id} / {check_id}", check_id, float(passed), 1.0, hidden, passed, feedback)


def test_results_json_fields():
    """Gradescope's fields from a grade made by hand: numbers per exercise,
    the visibility of the whole, and a grader error said on top, bilingual
    and with what would be read as HTML escaped."""
    aligned = "得到 / got:      [1.0, 0.0]\n期望 / expected: [1.0, -inf]"
    grade = Grade(
        "mine",
        results=[
            _result("ex0_weighted_sum", "test_a", False, True),
            _result("ex0_weighted_sum", "test_b", True, False, aligned),
            _result("ex4_masking", "test_c", False, False, aligned),
        ],
        errors=['File "<module>", line 1 & more'],
        inputs_seed=7,
    )
    results = valid(report.results_json(grade))
    assert [t["number"] for t in results["tests"]] == ["0.1", "0.2", "4.1"]
    assert results["tests"][1]["output"] == aligned  # shown as it is, in a <pre>
    assert results["visibility"] == "after_published"
    assert results["extra_data"] == {"grader_version": __version__, "inputs_seed": 7}
    assert results["output_format"] == "simple_format"
    assert results["output"].startswith("评分程序出错")
    assert "grader error" in results["output"] and "&lt;module&gt;" in results["output"] and "&amp; more" in results["output"]

    public = Grade("mine", results=[_result("ex4_masking", "test_c", False, True)])
    results = valid(report.results_json(public))
    assert results["visibility"] == "visible"  # a student's own run: no hidden checks, nothing to wait for
    assert "output" not in results and "inputs_seed" not in results["extra_data"]


def test_ungradable_results():
    """What the batch writes for a submission it cannot grade (a zip that
    cannot be read, no exercise files): 0, and why, on top."""
    results = valid(report.ungradable_results("不是有效的 zip 文件 / not a valid zip file", "收到 / received: <b>.py"))
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"].splitlines() == [report.UNGRADABLE, "不是有效的 zip 文件 / not a valid zip file", "收到 / received: &lt;b&gt;.py"]


def test_python_that_cannot_run_still_gives_results(autograder):
    make_submission(autograder / "submission")
    (autograder / "results").mkdir()
    (autograder / "results" / "results.json").write_text('{"score": 100}', encoding="utf-8")  # stale: must not survive
    results, proc = run_autograder(autograder, PYTHON="/bin/false")
    assert results["score"] == 0
    assert "could not finish" in results["output"] and "老师" in results["output"]
    assert "writing a score of 0" in proc.stderr


def test_grader_crash_still_gives_results(autograder):
    make_submission(autograder / "submission")
    os.remove(autograder / "source" / "grader" / "engine" / "plugin.py")
    results, proc = run_autograder(autograder)
    assert results["score"] == 0
    assert "autograder failed" in results["output"]
    assert "plugin" not in results["output"]  # the details are for the teacher
    assert "Traceback" in proc.stderr and "plugin" in proc.stderr


def test_grading_that_takes_too_long_is_stopped(autograder):
    make_submission(autograder / "submission")
    results, _ = run_autograder(autograder, GRADER_TIMEOUT="1")
    assert results["score"] == 0
    assert "longer than 1 seconds" in results["output"]


def test_find_submission(tmp_path):
    def tree(*paths):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        for p in paths:
            (root / p).parent.mkdir(parents=True, exist_ok=True)
            (root / p).write_text("", encoding="utf-8")
        root.mkdir(exist_ok=True)
        return root

    files = [f"{ex}.py" for ex in IDS]
    top = tree(*files)
    assert find_submission(str(top)) == (str(top), len(IDS))
    sub = tree(*[f"exercises/{f}" for f in files], "README.md")
    assert find_submission(str(sub)) == (str(sub / "exercises"), len(IDS))
    nested = tree(*[f"attention/exercises/{f}" for f in files], *[f"__MACOSX/attention/exercises/{f}" for f in files])
    assert find_submission(str(nested)) == (str(nested / "attention" / "exercises"), len(IDS))
    more = tree(files[0], *[f"exercises/{f}" for f in files[:3]])
    assert find_submission(str(more)) == (str(more / "exercises"), 3)
    assert find_submission(str(tree("notes.txt"))) == (None, 0)
    assert find_submission(str(tmp_path / "missing")) == (None, 0)


# - as Gradescope runs it: root, no namespaces ------------------------------

# A thief of 10 lines per exercise: it finds the grader's folder from the
# command lines in /proc (world-readable) and runs the reference solution.
THIEF = """
import glob, os
for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        args = open(cmdline, "rb").read().decode(errors="replace").split("\\0")
    except OSError:
        continue
    if "grader.teacher.platforms.gradescope" in args and "autograde" in args:
        root = args[args.index("autograde") + 1]
        exec(open(os.path.join(root, "source", "solutions", os.path.basename(__file__)), encoding="utf-8").read())
        break
"""

# A rewriter: everything of run_autograder after the line bash is running
# (the grader's) becomes code that writes a full score, run as root once
# the grader exits, unless bash has read it all before.
REWRITER = """
import glob, os
for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
    args = open(cmdline, "rb").read().decode(errors="replace").split("\\0")
    if "grader.teacher.platforms.gradescope" in args and "autograde" in args:
        root = args[args.index("autograde") + 1]
        script = os.path.join(root, "run_autograder")
        text = open(script).read()
        cut = text.index("\\n", text.rindex("grader.teacher.platforms.gradescope autograde")) + 1
        payload = "echo '{\\"score\\": 100, \\"tests\\": []}' > " + root + "/results/results.json; exit 0\\n"
        with open(script, "r+") as f:
            f.seek(cut)
            f.write((payload * (1 + (len(text) - cut) // len(payload)))[: max(len(text) - cut, len(payload))])
        break
"""


@pytest.fixture
def gradescope_root(bundle):
    """``bundle`` laid out as Gradescope lays it out, in a folder every user
    may go through (as /autograder is), and a PATH without bubblewrap."""
    base = tempfile.mkdtemp(prefix="gradescope-root-", dir="/tmp")
    os.chmod(base, 0o755)
    root = os.path.join(base, "autograder")
    with zipfile.ZipFile(bundle) as z:
        z.extractall(os.path.join(root, "source"))
    for dirpath, dirnames, filenames in os.walk(base):  # as unzipped by root with umask 022
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
    shutil.copy(os.path.join(root, "source", "run_autograder"), os.path.join(root, "run_autograder"))
    os.chmod(os.path.join(root, "run_autograder"), 0o755)
    os.mkdir(os.path.join(root, "submission"))
    bin_dir = os.path.join(base, "bin")
    os.mkdir(bin_dir)
    for folder in ("/usr/bin", "/bin"):
        for name in os.listdir(folder):
            if name != "bwrap" and not os.path.lexists(os.path.join(bin_dir, name)):
                os.symlink(os.path.join(folder, name), os.path.join(bin_dir, name))
    yield pathlib.Path(root), bin_dir
    shutil.rmtree(base, ignore_errors=True)


def _as_root_without_bubblewrap(root, bin_dir):
    if os.geteuid() != 0 and not os.environ.get("ATTENTION_CI"):
        pytest.skip("needs root, as Gradescope runs it")
    results, proc = run_autograder(root, PATH=bin_dir)
    assert "grader.engine.sandbox" not in proc.stderr
    return results, proc


def test_as_root_without_namespaces_the_solutions_score_100(gradescope_root):
    root, bin_dir = gradescope_root
    make_submission(root / "submission")
    results, proc = _as_root_without_bubblewrap(root, bin_dir)
    assert results["score"] == TOTAL, proc.stdout[-3000:]
    assert "unconfined" not in results["extra_data"], results["extra_data"]


def test_as_root_without_namespaces_a_solution_thief_scores_0(gradescope_root):
    root, bin_dir = gradescope_root
    for ex in IDS:
        (root / "submission" / f"{ex}.py").write_text(THIEF, encoding="utf-8")
    results, proc = _as_root_without_bubblewrap(root, bin_dir)
    assert results["score"] == 0, proc.stdout[-3000:]
    assert "PermissionError" in proc.stdout  # it found the folder, and could not read it


def test_as_root_without_namespaces_a_script_rewriter_scores_0(gradescope_root):
    root, bin_dir = gradescope_root
    (root / "submission" / "ex0_weighted_sum.py").write_text(REWRITER, encoding="utf-8")
    before = (root / "run_autograder").read_bytes()
    results, proc = _as_root_without_bubblewrap(root, bin_dir)
    assert results["score"] == 0 and results["tests"], results
    assert (root / "run_autograder").read_bytes() == before
    assert "PermissionError" in proc.stdout


def test_run_autograder_reads_itself_whole_before_it_runs(tmp_path):
    """Even where a submission could write run_autograder, what it writes
    is never run: bash has read the whole script before grading starts."""
    script = tmp_path / "run_autograder"
    script.write_text(run_autograder_sh(), encoding="utf-8")
    fake = tmp_path / "fake-python"
    # A "python" that, as a child of the grader could, writes over the rest
    # of the script from the line bash is running, then fails.
    fake.write_text(
        "#!/usr/bin/env python3\n"
        "import sys\n"
        f"script, marker = {str(script)!r}, {str(tmp_path / 'pwned')!r}\n"
        "text = open(script).read()\n"
        "cut = text.index('\\n', text.rindex('grader.teacher.platforms.gradescope autograde')) + 1\n"
        "payload = 'echo PWNED > ' + marker + '; exit 0\\n'\n"
        "with open(script, 'r+') as f:\n"
        "    f.seek(cut)\n"
        "    f.write(payload * (1 + (len(text) - cut) // len(payload)))\n"
        "sys.exit(1)\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    (tmp_path / "source").mkdir()
    proc = subprocess.run(["bash", str(script)], env={**os.environ, "AUTOGRADER_ROOT": str(tmp_path), "PYTHON": str(fake)}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "pwned").exists()
    assert json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))["score"] == 0
