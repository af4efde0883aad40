"""Helpers for the docs tests: where the docs are, how they are parsed and built.

The builds are slow (the figures, the grader's samples), so each edition is
built once per test session and shared by every test that needs it.
"""
import contextlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXT = DOCS / "_ext"
for path in (EXT, ROOT / "solutions", DOCS, ROOT):
    if str(path) not in sys.path:
        sys.path.append(str(path))

_built: dict[str, Path] = {}


def sources() -> list[Path]:
    """Every Markdown page of the site."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def sphinx_build(srcdir: Path, outdir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q", "-j", "auto",
         "-d", str(outdir.parent / f"doctrees-{outdir.name}"), *extra, str(srcdir), str(outdir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def built_site(edition: str, tmp_path_factory) -> Path:
    """The student or teacher edition, built with -W into a temporary folder (once per session)."""
    if edition not in _built:
        out = tmp_path_factory.mktemp("docs") / edition
        proc = sphinx_build(DOCS, out, *(["-t", "teacher"] if edition == "teacher" else []))
        assert proc.returncode == 0, f"the {edition} docs build failed:\n{proc.stdout[-5000:]}\n{proc.stderr[-10000:]}"
        _built[edition] = out
    return _built[edition]


def markdown_tokens(text: str):
    """The page's block tokens, parsed the way MyST parses it."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions={"colon_fence"}), RendererHTML).parse(text)


@contextlib.contextmanager
def serve(root: Path):
    """Serve a built site over HTTP on the loopback address: yields (root, its address)."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
