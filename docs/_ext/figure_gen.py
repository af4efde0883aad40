"""Figures drawn at build time from the reference solutions.

``{figure-gen} causal_mask`` runs ``docs/figures/causal_mask.py``'s ``draw()``,
saves the matplotlib figure as a PNG beside the doctrees (never in the source
tree) and shows it like ``{figure}``: options and caption work the same.
A ``draw()`` may instead return SVG text (the grader's class report draws its
figures as SVG): it is saved as it is, as an SVG.

In the HTML every figure's image (these and any plain ``{figure}``) is a link
to the image file: on a phone a figure shrinks to the screen's width and its
labels become too small to read, so a tap opens it at full size.
"""
import importlib
import os
import posixpath
import sys
import urllib.parse
from pathlib import Path

from docutils import nodes
from sphinx.directives.patches import Figure
from sphinx.util import logging

logger = logging.getLogger(__name__)

# Tried in order; matplotlib falls back glyph by glyph from DejaVu Sans to these.
CJK_FONTS = [
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "SimHei",
]


def setup_matplotlib():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager

    cjk = _installed_cjk_fonts(font_manager)
    if not cjk:
        raise RuntimeError(
            "no Chinese font for the figures: install one of "
            + ", ".join(CJK_FONTS)
            + " (Debian/Ubuntu: apt-get install fonts-wqy-microhei)"
        )
    matplotlib.rcParams.update(
        {
            "font.family": ["DejaVu Sans", cjk[0]],
            "axes.unicode_minus": False,
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "svg.hashsalt": "docs",
        }
    )


# File names of the fonts above, for a font installed after matplotlib cached its font list.
_CJK_FILES = ("wqy", "notosanscjk", "sourcehansans", "pingfang", "hiragino", "msyh", "simhei")


def _installed_cjk_fonts(font_manager) -> list[str]:
    def known():
        installed = {f.name for f in font_manager.fontManager.ttflist}
        return [name for name in CJK_FONTS if name in installed]

    if not known():
        for path in font_manager.findSystemFonts():
            if any(part in path.lower().replace("-", "") for part in _CJK_FILES):
                font_manager.fontManager.addfont(path)
    return known()


class GeneratedFigure(Figure):
    """``{figure-gen} NAME``: the figure ``docs/figures/NAME.py`` draws."""

    def run(self):
        env = self.state.document.settings.env
        name = self.arguments[0]
        srcdir = Path(env.srcdir)
        module_path = srcdir / "figures" / f"{name}.py"
        if not module_path.is_file():
            raise self.error(f"no figure module {module_path}")
        env.note_dependency(str(module_path))
        try:
            out = draw(name, Path(env.doctreedir) / "figures")
        except Exception as e:  # noqa: BLE001 - becomes a build error with the cause
            raise self.error(f"figure {name}: {type(e).__name__}: {e}") from e
        self.arguments[0] = "/" + os.path.relpath(out, srcdir).replace(os.sep, "/")
        self.options.setdefault("alt", name.replace("_", " "))
        return super().run()


def draw(name: str, folder: Path) -> Path:
    """Draw figure ``name`` into ``folder``; returns the file written."""
    setup_matplotlib()
    import matplotlib.pyplot as plt

    module = importlib.import_module(f"figures.{name}")
    fig = module.draw()
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(fig, str):  # SVG text
        out = folder / f"{name}.svg"
        out.write_text(fig, encoding="utf-8")
        return out
    out = folder / f"{name}.png"
    fig.savefig(out, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return out


class full_size_link(nodes.reference):
    """A link from a figure's image to the image file itself.

    Where the builder copies the file (``_images/…``, renamed if two images
    share a name) is known only when the page is written, so the address is
    filled in then, the way Sphinx rewrites the image's own ``src``.
    """


def visit_full_size_link(self, node):
    uri = node[0]["uri"]
    if uri in self.builder.images:
        uri = posixpath.join(self.builder.imgpath, urllib.parse.quote(self.builder.images[uri]))
    node["refuri"] = uri
    self.visit_reference(node)


def depart_full_size_link(self, node):
    self.depart_reference(node)


def link_figures_to_their_files(app, doctree, docname):
    # Images with a size option are linked by Sphinx (html_scaled_image_link);
    # those are wrapped here first, so that every figure links the same way.
    if app.builder.format != "html":
        return
    for figure in doctree.findall(nodes.figure):
        for image in list(figure.findall(nodes.image)):
            if isinstance(image.parent, nodes.reference):
                continue  # a :target: of its own
            link = full_size_link("", internal=True)
            image.replace_self(link)
            link += image


def setup(app):
    sys.path.insert(0, str(Path(app.srcdir)))  # for ``figures.<name>``
    app.add_directive("figure-gen", GeneratedFigure)
    app.add_node(full_size_link, html=(visit_full_size_link, depart_full_size_link))
    app.connect("doctree-resolved", link_figures_to_their_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
