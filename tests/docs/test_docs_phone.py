"""The site on a phone (390 px wide) in a real browser: the search's count,
the figures' text, the tables.

- The search page's count line is filled in every language mode (中文 + English
  showed "found ${resultCount} pages": the two halves each hold the
  placeholder, and Sphinx fills only the first).
- On a 390 px screen every figure of every page (student and teacher
  editions) is drawn with its smallest text at 11 CSS px or more: the image
  says how big its smallest text is in its own pixels (data-min-font-px,
  docs/_ext/figure_gen.py), and the browser shows it at its displayed width
  over its natural width; of a <picture>, the image the browser chose
  (currentSrc). No figure is wider than the screen, and every image says
  what it shows (its alt text is more than its file's name), in the
  language chosen.
- A table wider than the screen scrolls inside its own box, and its last
  column can be scrolled to; the page itself never scrolls sideways.
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from docs_site import built_site, serve

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None and os.environ.get("ATTENTION_CI"):
    raise RuntimeError("CI must run the browser test: Debian's chromium is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
PHONE = {"width": 390, "height": 844}
LANG_KEY = "attention-docs-lang"  # where _static/lang.js keeps the reader's choice
CJK = re.compile("[\u3400-\u9fff]")
MIN_TEXT_PX = 11


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """edition -> (build folder, its address), each served on the loopback address."""
    with serve(built_site("student", tmp_path_factory)) as student, serve(built_site("teacher", tmp_path_factory)) as teacher:
        yield {"student": student, "teacher": teacher}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


@pytest.fixture
def phone(browser):
    """phone(mode) -> a page on a phone's screen (390 px, 3 pixels to a CSS px) with that
    language choice (zh, en or both), collecting console errors in .errors."""
    contexts = []

    def make(mode="both"):
        context = browser.new_context(viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True)
        context.add_init_script(f"localStorage.setItem({LANG_KEY!r}, {mode!r})")
        contexts.append(context)
        p = context.new_page()
        p.errors = []
        p.on("console", lambda m: p.errors.append(f"{p.url}: console {m.type}: {m.text}") if m.type == "error" else None)
        p.on("pageerror", lambda e: p.errors.append(f"{p.url}: page error: {e}"))
        return p

    yield make
    for context in contexts:
        context.close()


def _html_pages(root: Path, under: tuple[str, ...] = ()) -> list[str]:
    names = sorted(str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*.html"))
    return [n for n in names if not under or n.startswith(under)]


def _every_page(sites) -> list[tuple[str, str]]:
    """(address, name) of every page: the student edition's, then those only the teacher edition has."""
    root, url = sites["student"]
    student = _html_pages(root)
    root, teacher_url = sites["teacher"]
    teacher = [name for name in _html_pages(root) if name not in student]
    assert teacher, "the teacher edition has no pages of its own"
    return [(url, name) for name in student] + [(teacher_url, name) for name in teacher]


# ---------------------------------------------------------------------------
# The search's count line


def _search(p, url, query) -> tuple[str, int]:
    """The count line of a search for ``query`` and how many results it lists."""
    p.goto(url + "search.html?q=" + query)
    p.wait_for_function("() => document.querySelector('#search-results p.search-summary')?.textContent", timeout=20_000)
    line = p.locator("#search-results p.search-summary").inner_text()
    return line, p.locator("#search-results ul.search > li").count()


def _one_result_query(root: Path) -> str:
    """A word of the search index that only one page holds (pages change: it is looked up, not written here)."""
    import json

    text = (root / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    titles = " ".join(index["titles"]).lower()
    for term, docs in sorted(index["terms"].items()):
        if isinstance(docs, int) and re.fullmatch("[a-z]{7,}", term) and term not in titles:
            return term
    raise AssertionError("no word of the search index is on one page only")


def _check_count_line(mode: str, line: str, listed: int) -> list[str]:
    problems = []
    if re.search(r"\$\{|%\(|\{\w*\}", line):
        problems.append("a placeholder is left")
    numbers = [int(n) for n in re.findall(r"\d+", line)]
    if any(n != listed for n in numbers):
        problems.append(f"it gives {numbers}, the page lists {listed}")
    if mode == "en":
        if CJK.search(line):
            problems.append("Chinese in English mode")
        if listed > 1 and not numbers:
            problems.append("no number")
    if mode == "zh":
        if re.search("[A-Za-z]", line):
            problems.append("English in Chinese mode")
        if not numbers:
            problems.append("no number")
    if mode == "both":
        if not (CJK.search(line) and re.search("[A-Za-z]", line)):
            problems.append("not both languages")
        if len(numbers) != (2 if listed > 1 else 1):  # "one page" in English
            problems.append(f"the number should be in each language: {numbers}")
    return problems


@pytest.mark.parametrize("mode", ["both", "zh", "en"])
def test_search_counts_its_results_in_every_language(sites, phone, mode):
    """中文 + English said "…有 12 个页面。 / Search finished, found ${resultCount} pages …"."""
    root, url = sites["student"]
    p = phone(mode)
    found = []
    for query in ("注意力", _one_result_query(root)):
        line, listed = _search(p, url, query)
        assert listed >= 1, f"{query}: no results"
        found.append(listed)
        problems = _check_count_line(mode, line, listed)
        assert not problems, f"{mode}, {query!r}: {line!r}: {'; '.join(problems)}"
    assert found[0] >= 2 and found[1] == 1, found
    assert not p.errors, p.errors


# ---------------------------------------------------------------------------
# Figures

# Every <img> of the page once loaded: where it is, how big it is drawn, and
# the smallest text of the image the browser chose (<img> or a <source>).
_IMAGES = """async () => {
    const imgs = [...document.querySelectorAll("img")];
    await Promise.all(imgs.map((i) => i.decode().catch(() => null)));
    return imgs.map((img) => {
        let chosen = img;
        const picture = img.closest("picture");
        if (picture && img.currentSrc !== img.src) {
            chosen = [...picture.querySelectorAll("source")].find(
                (s) => new URL(s.getAttribute("srcset"), document.baseURI).href === img.currentSrc) || null;
        }
        const box = img.getBoundingClientRect();
        return {
            src: img.currentSrc, alt: img.getAttribute("alt"), figure: !!img.closest("figure"),
            minFontPx: chosen && chosen.dataset.minFontPx ? Number(chosen.dataset.minFontPx) : null,
            natural: img.naturalWidth, width: box.width, left: box.left, right: box.right,
            altZh: img.dataset.altZh || null, altEn: img.dataset.altEn || null, lang: img.getAttribute("lang"),
        };
    });
}"""


def _trivial_alt(alt: str | None, src: str) -> bool:
    stem = src.rsplit("/", 1)[-1].split("?")[0].rsplit(".", 1)[0].removesuffix("-narrow")
    words = (alt or "").strip()
    return len(words) < 30 or words.lower() in {stem.lower(), stem.replace("_", " ").lower(), stem.replace("_", "-").lower()}


def test_figures_are_readable_on_a_phone(sites, phone):
    p = phone()
    problems, figures = [], 0
    for url, name in _every_page(sites):
        p.goto(url + name)
        width = p.evaluate("innerWidth")
        for img in p.evaluate(_IMAGES):
            file = img["src"].rsplit("/", 1)[-1]
            if _trivial_alt(img["alt"], img["src"]):
                problems.append(f"{name}: {file}: no real alt text: {img['alt']!r}")
            if not img["figure"]:
                continue
            figures += 1
            if img["right"] > width + 0.5 or img["left"] < -0.5:
                problems.append(f"{name}: {file} is {img['width']:.0f} px wide, from {img['left']:.0f} to {img['right']:.0f}")
            if img["minFontPx"] is None:
                problems.append(f"{name}: {file} does not say the size of its smallest text (data-min-font-px)")
                continue
            shown = img["width"] / img["natural"] * img["minFontPx"]
            if shown < MIN_TEXT_PX:
                problems.append(f"{name}: {file}'s smallest text is {shown:.1f} CSS px ({img['natural']} px drawn {img['width']:.0f} px wide)")
    assert figures >= 10, "figures not found"
    assert not problems, "\n".join(problems)
    assert not p.errors, p.errors


def test_alt_text_follows_the_language(sites, phone):
    """The page holds "中文 / English"; one language chosen, the alt is that one's."""
    root, url = sites["student"]
    for mode in ("zh", "en", "both"):
        p = phone(mode)
        p.goto(url + "path/ex5_head.html")
        images = [img for img in p.evaluate(_IMAGES) if img["figure"]]
        assert images
        for img in images:
            assert img["altZh"] and img["altEn"], img["src"]
            want = {"zh": img["altZh"], "en": img["altEn"], "both": f"{img['altZh']} / {img['altEn']}"}[mode]
            assert img["alt"] == want, (mode, img["src"], img["alt"])
            assert img["lang"] == {"zh": "zh-CN", "en": "en", "both": None}[mode]
        assert not p.errors, p.errors


# ---------------------------------------------------------------------------
# Tables

# Every table: what of it or around it is wider than its box, and whether that
# box scrolls; then each box that scrolls is scrolled to its end, where the
# table's last column must be inside it.
_TABLES = """() => {
    const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
    const found = [];
    for (const table of document.querySelectorAll("table")) {
        // The box that scrolls the table sideways: itself or the nearest around it that is too narrow for it.
        let scroller = null;
        for (let el = table; el && el !== document.body && !scroller; el = el.parentElement) {
            if (scrolls(el) && el.scrollWidth > el.clientWidth + 1) scroller = el;
        }
        // Below it, nothing may hold the table in without scrolling: the table's
        // own content overflowing it, or the table sticking out of a box.
        const clipped = [];
        const right = table.getBoundingClientRect().right;
        for (let el = table; el && el !== scroller && el !== document.body; el = el.parentElement) {
            if (scrolls(el)) continue;
            const out = el === table ? el.scrollWidth > el.clientWidth + 1 : right > el.getBoundingClientRect().right + 1;
            if (out) clipped.push(`<${el.tagName.toLowerCase()} class="${el.className}"> overflow-x ${getComputedStyle(el).overflowX}`);
        }
        let lastRight = null, boxRight = null;
        if (scroller) {
            scroller.scrollLeft = scroller.scrollWidth;
            const cells = table.querySelectorAll("tr > :last-child");
            lastRight = Math.max(...[...cells].map((c) => c.getBoundingClientRect().right));
            boxRight = scroller.getBoundingClientRect().left + scroller.clientLeft + scroller.clientWidth;
            scroller.scrollLeft = 0;
        }
        const text = table.innerText.trim().replace(/\\s+/g, " ").slice(0, 50);
        found.push({text, clipped, scrolls: !!scroller, right: scroller ? scroller.getBoundingClientRect().right : right,
                    lastRight, boxRight});
    }
    return {tables: found, page: document.documentElement.scrollWidth, width: innerWidth};
}"""


def test_tables_scroll_inside_their_box_on_a_phone(sites, phone):
    """The teachers' mistake tables are 400-800 px wide: on a 390 px screen each
    scrolls in its own box, its last column in reach, and the page does not move."""
    p = phone()
    problems, wide = [], 0
    for url, name in _every_page(sites):
        p.goto(url + name)
        found = p.evaluate(_TABLES)
        if found["page"] > found["width"]:
            problems.append(f"{name}: the page is {found['page']} px wide")
        for t in found["tables"]:
            if t["clipped"]:
                problems.append(f"{name}: table {t['text']!r} is cut off by {t['clipped']}")
            if t["right"] > found["width"] + 0.5:
                problems.append(f"{name}: table {t['text']!r} (or its scrolling box) reaches {t['right']:.0f} px")
            if t["scrolls"]:
                wide += 1
                if t["lastRight"] > t["boxRight"] + 1:
                    problems.append(f"{name}: table {t['text']!r}: its last column ends at {t['lastRight']:.0f}, its box at {t['boxRight']:.0f} when scrolled to the end")
    assert not problems, "\n".join(problems)
    assert wide >= 5, "no table wider than a phone: nothing was tested"
    assert not p.errors, p.errors
