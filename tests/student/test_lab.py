"""``tox -e lab`` works as written, from a fresh clone and from the student
edition: JupyterLab opens on notebooks/, the notebook's kernel has torch
and the course, and ``check`` on a wrong answer shows the report in the
notebook (driven in Debian's Chromium; the screenshot is kept in examples/).

tox itself is not run (it would install torch): the lab environment's
command is read from that folder's own tox.ini and run with this
interpreter, which has JupyterLab, as test_start_commands.py does for grade.
"""

import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from readme_sections import tox_command

from grader.exercises import IDS

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None and os.environ.get("ATTENTION_CI"):
    raise RuntimeError("CI must run the browser test: Debian's chromium is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")

SCREENSHOT = Path(ROOT, "examples", "screenshots", "jupyterlab-check-wrong-answer.png")
WRONG = Path(ROOT, "tests", "catalogue", "wrong", "ex0_weighted_sum__softmax_dim0.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """JupyterLab started as ``tox -e lab -- ARGS`` starts it, in ``folder``:
    ARGS choose its port and token; nothing lets it run as root but tox.ini."""

    def __init__(self, folder: Path, home: Path):
        self.port, self.token = free_port(), secrets.token_hex(16)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JUPYTER"))}
        # tox.ini's set_env; Jupyter's own folders kept out of the machine's home.
        env.update(PYTHONPATH=str(folder), PYTHONDONTWRITEBYTECODE="1", HOME=str(home), JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"))
        extra = [
            f"--ServerApp.port={self.port}",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.ip=127.0.0.1",
            "--no-browser",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        self.log = open(home / "lab.log", "w")
        self.proc = subprocess.Popen(tox_command(folder, ["tox", "-e", "lab", "--", *extra]), cwd=folder, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=5).read()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise AssertionError((home / "lab.log").read_text())
                time.sleep(0.5)

    def get(self, path: str) -> bytes:
        return urllib.request.urlopen(f"{self.url}{path}?token={self.token}", timeout=30).read()

    def stop(self):
        os.killpg(self.proc.pid, 15)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


@pytest.mark.parametrize("edition", ["clone", "release"])
def test_lab_opens_the_notebooks_and_check_reports_in_them(edition, fresh_clone, student_edition, browser, tmp_path):
    folder = tmp_path / "course"
    shutil.copytree(fresh_clone if edition == "clone" else student_edition, folder)
    notebook = folder / "notebooks" / "ex0_weighted_sum.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("exercise") == "ex0_weighted_sum":
            cell.source = WRONG.read_text(encoding="utf-8").split('"""', 2)[2].strip()  # a catalogue mistake, its docstring dropped
    nbformat.write(nb, notebook)
    (tmp_path / "home").mkdir()
    lab = Lab(folder, tmp_path / "home")
    try:
        import json

        listed = json.loads(lab.get("/api/contents/notebooks"))
        assert sorted(item["name"] for item in listed["content"] if item["name"].endswith(".ipynb")) == sorted(f"{ex}.ipynb" for ex in IDS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{lab.url}/lab/tree/notebooks/ex0_weighted_sum.ipynb?token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        # Run All before the kernel is up may leave cells unrun: wait until it says Idle.
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        # JupyterLab sanitises the HTML of an untrusted notebook's output (a
        # downloaded one is untrusted): the report is found by its words.
        report = page.locator(".jp-OutputArea-output", has_text="总分 / total").first
        try:
            report.wait_for(timeout=240_000)
        except Exception:
            page.screenshot(path=str(tmp_path / "failed.png"), full_page=True)
            raise AssertionError(f"no report: see {tmp_path / 'failed.png'}") from None
        no_news = page.get_by_role("button", name="No", exact=True)  # JupyterLab asks once about its news
        if no_news.count():
            no_news.first.click()
        text = report.inner_text()
        assert "总分 / total" in text and "✗" in text
        assert "诊断 / found:" in text  # the mistake is named, in both languages
        # The experiment ran in the kernel, with torch.
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        assert any("torch.softmax" in o for o in outputs), outputs
        if edition == "release":
            assert "(+n)" in text  # the student edition has no hidden checks: the teacher grades them
        else:
            report.scroll_into_view_if_needed()
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT))
        page.close()
    finally:
        lab.stop()
