"""A page's experiment: a small script in plain torch that runs before the exercise is solved.

``{experiment} ex0_weighted_sum`` shows ``experiments/ex0_weighted_sum_experiment.py``
(the seed lesson's ``experiment.py`` in spirit): the command that runs it in
the ``grade`` environment, a download link, its code, and what it printed
when the docs were built. The build runs it, so a script that raises, prints
nothing or imports the student's or the reference's code fails the build
(``-W``): it must work for a student whose exercise is still a stub.

A page quotes what its experiment printed through ``experiment("ex3_scaling")``
in a ``{compute}`` block (``computed.py`` puts it in every page's namespace):
the script's variables after its run, the same run the page shows. A number a
page sends the reader to check in the experiment is then the number printed
beside it, whatever the script draws.
"""

import ast
import contextlib
import io
import runpy
import sys
import types
from pathlib import Path

from bilingual import lang_block
from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

# What an experiment may import: torch and the standard library's small helpers.
# Not the exercises (a stub raises), not the solutions (students don't have them).
ALLOWED_IMPORTS = {"torch", "math", "random", "itertools", "functools", "collections", "statistics"}


def script_name(exercise: str) -> str:
    return f"{exercise}_experiment.py"


def command(exercise: str) -> str:
    """How a student runs it, from the course folder (a clone or the student edition)."""
    return f"tox exec -e grade -- python experiments/{script_name(exercise)}"


def imports(source: str) -> set[str]:
    """The top-level packages a script imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add((node.module or ".").split(".")[0] if not node.level else ".")
    return found


EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"

# One run per script and version of it: the page's {experiment} and its quotes
# are the same run. Keyed by path and modification time.
_runs: dict[tuple[str, int], tuple[str, dict]] = {}


def run_with_variables(path: Path) -> tuple[str, dict]:
    """Run the script as ``python path`` would: what it printed and its variables."""
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _runs:
        out = io.StringIO()
        saved = sys.argv
        sys.argv = [str(path)]
        try:
            with contextlib.redirect_stdout(out):
                variables = runpy.run_path(str(path), run_name="__main__")
        finally:
            sys.argv = saved
        _runs[key] = (out.getvalue(), variables)
    return _runs[key]


def run(path: Path) -> str:
    """Run the script as ``python path`` would and return what it printed."""
    return run_with_variables(path)[0]


def experiment(exercise: str) -> types.SimpleNamespace:
    """The variables of the exercise's experiment after its run, and ``printed``, its output."""
    printed, variables = run_with_variables(EXPERIMENTS / script_name(exercise))
    public = {k: v for k, v in variables.items() if not k.startswith("__")}
    return types.SimpleNamespace(**public, printed=printed)


def _para(lang: str, *children) -> lang_block:
    block = lang_block(lang=lang)
    block += nodes.paragraph("", "", *children)
    return block


class ExperimentDirective(SphinxDirective):
    required_arguments = 1

    def run(self):
        exercise = self.arguments[0]
        root = Path(self.env.srcdir).parent
        path = root / "experiments" / script_name(exercise)
        if not path.is_file():
            raise self.error(f"no experiment {path.relative_to(root)}")
        self.env.note_dependency(str(path))
        source = path.read_text(encoding="utf-8")
        foreign = imports(source) - ALLOWED_IMPORTS
        if foreign:
            raise self.error(f"{path.name} imports {sorted(foreign)}: an experiment uses only {sorted(ALLOWED_IMPORTS)}")
        try:
            printed = run(path)
        except BaseException as e:  # noqa: BLE001 - SystemExit too: becomes a build error with the cause
            raise self.error(f"{path.name} raised {type(e).__name__}: {e}") from e
        if not printed.strip():
            raise self.error(f"{path.name} printed nothing")

        rel = f"experiments/{path.name}"
        download = addnodes.download_reference(
            "",
            "",
            nodes.literal(path.name, path.name, classes=["xref", "download"]),
            refdoc=self.env.docname,
            refdomain="",
            reftype="download",
            refexplicit=True,
            reftarget="/../" + rel,
        )
        cmd = nodes.literal_block(command(exercise), command(exercise), language="bash")
        code = nodes.literal_block(source, source, language="python")
        output = nodes.literal_block(printed, printed, language="text", classes=["experiment-output"])
        for n in (cmd, code, output):
            self.set_source_info(n)

        container = nodes.container(classes=["experiment"])
        container += _para(
            "zh",
            nodes.Text("这个实验只用 torch，不用你的代码，所以题目还没做完也能运行。下载 "),
            download.deepcopy(),
            nodes.Text("（课程文件夹里已有一份："),
            nodes.literal(rel, rel),
            nodes.Text("），在课程文件夹里运行："),
        )
        container += _para(
            "en",
            nodes.Text("This experiment uses plain torch, not your code, so it runs before you solve the exercise. Download "),
            download,
            nodes.Text(" (the course folder has it already: "),
            nodes.literal(rel, rel),
            nodes.Text(") and run it from the course folder:"),
        )
        container += cmd
        container += code
        container += _para("zh", nodes.Text("构建这个网站时，它打印了："))
        container += _para("en", nodes.Text("When this site was built, it printed:"))
        container += output
        return [container]


def setup(app):
    app.add_directive("experiment", ExperimentDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
