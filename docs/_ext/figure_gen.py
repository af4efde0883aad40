"""Figures drawn at build time from the reference solutions.

``{figure-gen} causal_mask`` runs ``docs/figures/causal_mask.py``'s ``draw()``,
saves the matplotlib figure as a PNG beside the doctrees (never in the source
tree) and shows it like ``{figure}``: options and caption work the same.
A ``draw()`` may instead return SVG text (the grader's class report draws its
figures as SVG): it is saved as it is, as an SVG.

A figure module's ``draw(narrow=False)`` may also draw a narrow variant for
phones (``draw(narrow=True)``: panels stacked, larger text): the HTML then
shows it with ``<picture>``, the narrow PNG in a ``<source>`` for screens up to
NARROW_MEDIA and the wide one in the ``<img>``. On a phone's 390 px screen no
text of a figure may be smaller than 11 CSS px: each image carries the size of
its smallest text in image pixels (``data-min-font-px``; from the figure's
text artists, points x dpi / 72), which tests/docs/test_docs_phone.py multiplies by
the displayed / natural width of the image the browser chose.

Each module gives its alt text, ``alt()`` or ``ALT``: ``{"zh": ..., "en": ...}``,
what the figure shows (built from its data, so that its numbers are true).
A module without it is a warning (the build fails with -W). The ``<img>``'s
alt is "中文 / English"; lang.js narrows it to the reader's language.

In the HTML every figure's image (these and any plain ``{figure}``) is a link
to the (wide) image file, so a tap opens it at full size.
"""

import importlib
import inspect
import os
import posixpath
import re
import shutil
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import build_cache
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

DPI = 150  # the wide image's
NARROW_DPI = 200  # a phone's screen has 2 or 3 pixels to a CSS px
# Where the narrow variant is shown; docs/_static/site.css gives figures the
# column's full width at the same breakpoint.
NARROW_MEDIA = "(max-width: 600px)"


def setup_matplotlib():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager

    cjk = _installed_cjk_fonts(font_manager)
    if not cjk:
        raise RuntimeError("no Chinese font for the figures: install one of " + ", ".join(CJK_FONTS) + " (Debian/Ubuntu: apt-get install fonts-wqy-microhei)")
    matplotlib.rcParams.update(
        {
            "font.family": ["DejaVu Sans", cjk[0]],
            "axes.unicode_minus": False,
            "figure.dpi": 100,
            "savefig.dpi": DPI,
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
            drawn = draw(name, Path(env.doctreedir) / "figures")
        except Exception as e:  # noqa: BLE001 - becomes a build error with the cause
            raise self.error(f"figure {name}: {type(e).__name__}: {e}") from e

        def uri(image: "Drawn") -> str:
            return "/" + os.path.relpath(image.path, srcdir).replace(os.sep, "/")

        self.arguments[0] = uri(drawn.wide)
        alt = drawn.alt
        if alt is None:
            logger.warning(
                f'figure {name}: docs/figures/{name}.py gives no alt text: an ALT = {{"zh": ..., "en": ...}} or an alt() returning one, saying what the figure shows',
                location=(env.docname, self.lineno),
            )
        own_alt = alt is not None and "alt" not in self.options  # a page's :alt: comes first
        if own_alt:
            self.options["alt"] = f"{alt['zh']} / {alt['en']}"
        self.options.setdefault("alt", name.replace("_", " "))
        result = super().run()
        figure = next((n for n in result if isinstance(n, nodes.figure)), None)
        image = next(iter(figure.findall(nodes.image)), None) if figure is not None else None
        if image is None:
            return result
        shown = generated_image(image.rawsource, **image.attributes)
        shown["data"] = {"data-min-font-px": f"{drawn.wide.min_font_px:.2f}"}
        if own_alt:
            shown["data"].update({"data-alt-zh": alt["zh"], "data-alt-en": alt["en"]})
        if drawn.narrow is None:
            image.replace_self(shown)
            return result
        shown["classes"].append("no-scaled-link")  # the picture is linked (link_figures_to_their_files)
        picture = figure_picture()
        source = figure_source(uri=uri(drawn.narrow), media=NARROW_MEDIA)
        source["data"] = {"data-min-font-px": f"{drawn.narrow.min_font_px:.2f}"}
        picture += [source, shown]
        image.replace_self(picture)
        return result


@dataclass
class Drawn:
    """An image file and the size of its smallest text, in the image's pixels
    (for an SVG, in CSS px at its natural size)."""

    path: Path
    min_font_px: float


@dataclass
class DrawnFigure:
    wide: Drawn
    narrow: Drawn | None  # for phones, if the module draws one
    alt: dict | None  # {"zh": ..., "en": ...}


def draw(name: str, folder: Path) -> DrawnFigure:
    """Figure ``name`` in ``folder`` (and its narrow variant, if the module has
    one), drawn once for the build's processes (and the tests' two builds:
    build_cache) and copied here."""
    drawn, said = build_cache.files_once(f"figure-{name}", lambda into: _draw_into(name, into))
    folder.mkdir(parents=True, exist_ok=True)

    def placed(image: list | None) -> Drawn | None:
        if image is None:
            return None
        file, min_font_px = image
        shutil.copyfile(drawn / file, folder / file)
        return Drawn(folder / file, min_font_px)

    wide = placed(said["wide"])
    assert wide is not None
    return DrawnFigure(wide, placed(said["narrow"]), said["alt"])


def _draw_into(name: str, folder: Path) -> dict:
    """Draw figure ``name`` into ``folder``: what ``draw`` needs to know of it, as JSON."""
    setup_matplotlib()
    module = importlib.import_module(f"figures.{name}")
    wide = _save(module.draw(), folder / name, DPI)
    narrow = None
    if "narrow" in inspect.signature(module.draw).parameters:
        # a thin margin: the phone's page has its own, and every pixel of width makes the text larger
        narrow = _save(module.draw(narrow=True), folder / f"{name}-narrow", NARROW_DPI, pad_inches=0.03)
    return {
        "wide": [wide.path.name, wide.min_font_px],
        "narrow": None if narrow is None else [narrow.path.name, narrow.min_font_px],
        "alt": _alt(module),
    }


def _alt(module) -> dict | None:
    alt = module.alt() if callable(getattr(module, "alt", None)) else getattr(module, "ALT", None)
    if alt is None:
        return None
    if not (isinstance(alt, dict) and all(isinstance(alt.get(k), str) and alt[k].strip() for k in ("zh", "en"))):
        raise ValueError(f"the alt text must be {{'zh': ..., 'en': ...}}, not {alt!r}")
    return {k: " ".join(alt[k].split()) for k in ("zh", "en")}


def _save(fig, stem: Path, dpi: int, pad_inches: float = 0.1) -> Drawn:
    import matplotlib.pyplot as plt

    if isinstance(fig, str):  # SVG text
        out = stem.with_suffix(".svg")
        out.write_text(fig, encoding="utf-8")
        return Drawn(out, smallest_svg_text_px(fig))
    out = stem.with_suffix(".png")
    fig.savefig(out, dpi=dpi, bbox_inches="tight", pad_inches=pad_inches, metadata={"Software": None})
    size = smallest_text_pt(fig) * dpi / 72  # after the drawing: tick labels are made then
    plt.close(fig)
    return Drawn(out, size)


def smallest_text_pt(fig) -> float:
    """The font size in points of the smallest text drawn in a matplotlib figure."""
    from matplotlib.text import Text

    sizes = []

    def walk(artist):
        if not artist.get_visible():
            return
        if isinstance(artist, Text) and artist.get_text().strip():
            sizes.append(artist.get_fontsize())
        for child in artist.get_children():
            walk(child)

    walk(fig)
    if not sizes:
        raise ValueError("the figure has no text")
    return min(sizes)


def smallest_svg_text_px(svg: str) -> float:
    """The smallest text of an SVG drawn by matplotlib with its text as paths
    (svg.fonttype "path": every glyph run is a group scaled by font size / 100),
    in CSS px at the SVG's natural size (its units are points)."""
    scales = [float(s) for s in re.findall(r'<!-- .*? -->\s*<g transform="translate\([^)]*\) scale\(([0-9.]+) -', svg)]
    if not scales:
        raise ValueError("no text found in the SVG: only matplotlib's text drawn as paths is measured")
    return min(scales) * 100 * 96 / 72


class figure_picture(nodes.General, nodes.Element):
    """``<picture>``: a figure's narrow variant for phones, then its wide image."""


class figure_source(nodes.image):
    """The narrow variant: an image node, so that Sphinx copies the file; a ``<source>`` in HTML."""


class generated_image(nodes.image):
    """A generated figure's ``<img>``, with the size of its smallest text and its alt text per language."""


def visit_figure_picture(self, node):
    self.body.append("<picture>")


def depart_figure_picture(self, node):
    self.body.append("</picture>\n")


def visit_figure_source(self, node):
    uri = node["uri"]
    if uri in self.builder.images:
        uri = posixpath.join(self.builder.imgpath, urllib.parse.quote(self.builder.images[uri]))
    self.body.append(self.starttag(node, "source", "", empty=True, srcset=uri, media=node["media"], **node["data"]))
    raise nodes.SkipNode


def visit_generated_image(self, node):
    if "no-scaled-link" in node["classes"]:
        node["classes"].remove("no-scaled-link")  # read by Sphinx before the page is written
    self.visit_image(node)
    data = "".join(f' {name}="{self.attval(value)}"' for name, value in node.get("data", {}).items())
    if not self.body[-1].startswith("<img "):
        raise ValueError(f"a generated figure was not written as an <img>: {self.body[-1][:80]!r}")
    self.body[-1] = "<img" + data + self.body[-1][4:]


def depart_generated_image(self, node):
    self.depart_image(node)


def _skip(self, node):
    raise nodes.SkipNode


def _pass(self, node):
    pass


def _as_image(self, node):
    self.visit_image(node)


def _as_image_end(self, node):
    self.depart_image(node)


class full_size_link(nodes.reference):
    """A link from a figure's image to the image file itself.

    Where the builder copies the file (``_images/…``, renamed if two images
    share a name) is known only when the page is written, so the address is
    filled in then, the way Sphinx rewrites the image's own ``src``.
    """


def visit_full_size_link(self, node):
    uri = next(n for n in node.findall(nodes.image) if not isinstance(n, figure_source))["uri"]
    if uri in self.builder.images:
        uri = posixpath.join(self.builder.imgpath, urllib.parse.quote(self.builder.images[uri]))
    node["refuri"] = uri
    # Sphinx's visit_reference would do the same for an <img>, but it holds a <picture> too.
    self.body.append(self.starttag(node, "a", "", href=uri, CLASS="reference internal image-reference"))


def depart_full_size_link(self, node):
    self.body.append("</a>\n")


def link_figures_to_their_files(app, doctree, docname):
    # Images with a size option are linked by Sphinx (html_scaled_image_link);
    # those are wrapped here first, so that every figure links the same way.
    if app.builder.format != "html":
        return
    for figure in doctree.findall(nodes.figure):
        for image in list(figure.findall(nodes.image)):
            if isinstance(image, figure_source):
                continue  # linked with its picture
            shown = image.parent if isinstance(image.parent, figure_picture) else image
            if isinstance(shown.parent, nodes.reference):
                continue  # a :target: of its own
            link = full_size_link("", internal=True)
            shown.replace_self(link)
            link += shown


def setup(app):
    sys.path.insert(0, str(Path(app.srcdir)))  # for ``figures.<name>``
    app.add_directive("figure-gen", GeneratedFigure)
    app.add_node(full_size_link, html=(visit_full_size_link, depart_full_size_link))
    other = ("latex", "text", "man", "texinfo")
    app.add_node(figure_picture, html=(visit_figure_picture, depart_figure_picture), **{f: (_pass, _pass) for f in other})
    app.add_node(figure_source, html=(visit_figure_source, None), **{f: (_skip, None) for f in other})
    app.add_node(
        generated_image,
        html=(visit_generated_image, depart_generated_image),
        **{f: (_as_image, _as_image_end) for f in other},
    )
    app.connect("doctree-resolved", link_figures_to_their_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
