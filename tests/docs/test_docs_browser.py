"""The student site in a real browser: Debian's Chromium driven by Playwright.

Every page loads without a console error; the language choice switches the
text and is still there on the next page; the slider moves the numbers; each
stub download serves the stub; a Chinese search finds the masking page.

On a phone (390 x 844) and on a desktop (1280 x 900), in every language mode
tried, no page is wider than the screen; on a phone the search form and the
way to the path are on the first screen of every page, each figure is a link
to its image file, and the slider's box holds its table and range. The
theme's own words (导航, 搜索, … / Navigation, Search, …) follow the
language choice; a search lists each page once, and in English its excerpts
have no Chinese.

Screenshots are saved for review in docs/_build/screenshots/: the
weighted-sum page, and the masking page on a phone and on a desktop.
"""

import json
import os
import re
import shutil
import urllib.request
from pathlib import Path

import pytest
from docs_site import DOCS, ROOT, built_site, serve

from grader.exercises import IDS

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None and os.environ.get("ATTENTION_CI"):
    raise RuntimeError("CI must run the browser test: Debian's chromium is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
SCREENSHOTS = DOCS / "_build" / "screenshots"
SCREENSHOT = SCREENSHOTS / "weighted-sum.png"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LANG_KEY = "attention-docs-lang"  # where _static/lang.js keeps the reader's choice
CJK = re.compile("[\u3400-\u9fff]")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The student build, served over HTTP on the loopback address: (its folder, its address)."""
    with serve(built_site("student", tmp_path_factory)) as served:
        yield served


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
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    p = context.new_page()
    p.errors = []
    p.on("console", lambda m: p.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    p.on("pageerror", lambda e: p.errors.append(f"page error: {e}"))
    yield p
    context.close()


@pytest.fixture
def open_page(browser):
    """open_page(viewport, mode) -> a page of a new browser with that screen and
    language choice (zh, en or both), collecting console errors in .errors."""
    contexts = []

    def make(viewport, mode="both"):
        context = browser.new_context(viewport=viewport)
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


def _html_pages(root) -> list[str]:
    return sorted(str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*.html"))


# What one visit to a page reads for the tests that look at every page in a
# screen and a language choice (each part is defined below, by its test).
_READ_ALL = """() => ({
    overflow: (%s)(),
    firstScreen: (%s)(),
    figures: [...document.querySelectorAll("div.body figure img")].map((img) => [img.closest("a")?.href ?? null, img.src]),
    shownText: (%s)(),
    themeText: (%s)(),
    titles: [...document.querySelectorAll("div.body h1, div.body h2, div.body h3")].map((h) => h.innerText),
    checkTables: [...document.querySelectorAll("table.check-list")].map((t) => t.innerText),
})"""


@pytest.fixture(scope="module")
def sweep(site, browser):
    """sweep(viewport, mode="both") -> ({page: what _READ_ALL read there, and
    whether it loaded}, the console errors): every page of the site visited
    once per screen and language choice, however many tests ask. A page
    load is most of this file's time, in Chromium's processes: the tests
    share six sweeps where they made nine."""
    root, url = site
    done: dict = {}
    read_all = _READ_ALL % (_OVERFLOW, _FIRST_SCREEN, _SHOWN_TEXT, _THEME_TEXT)

    def get(viewport, mode="both"):
        key = (viewport["width"], viewport["height"], mode)
        if key not in done:
            context = browser.new_context(viewport=viewport)
            context.add_init_script(f"localStorage.setItem({LANG_KEY!r}, {mode!r})")
            p = context.new_page()
            errors: list = []
            p.on("console", lambda m: errors.append(f"{p.url}: console {m.type}: {m.text}") if m.type == "error" else None)
            p.on("pageerror", lambda e: errors.append(f"{p.url}: page error: {e}"))
            read = {}
            for name in _html_pages(root):
                response = p.goto(url + name)
                read[name] = {"ok": bool(response and response.ok), **p.evaluate(read_all)}
            context.close()
            done[key] = (read, errors)
        return done[key]

    get.site = site
    return get


def test_every_page_loads_without_errors(sweep):
    read, errors = sweep(DESKTOP)
    assert len(read) >= 15
    assert not [name for name, seen in read.items() if not seen["ok"]]
    assert not errors, errors


def _visible(page, selector) -> bool:
    return page.locator(selector).first.is_visible()


def test_language_choice_switches_and_persists(site, page):
    _, url = site
    page.goto(url + "path/ex4_masking.html")
    assert _visible(page, "div.lang-zh") and _visible(page, "div.lang-en")  # both, by default
    page.click(".lang-switch button[data-mode=en]")
    assert not _visible(page, "div.lang-zh") and _visible(page, "div.lang-en")
    assert not _visible(page, "h1 .lang-zh") and _visible(page, "h1 .lang-en")  # the title follows too
    page.locator("a[href='ex5_head.html']:visible").first.click()
    page.wait_for_url("**/ex5_head.html")
    assert not _visible(page, "div.lang-zh") and _visible(page, "div.lang-en"), "the choice did not persist"
    assert page.locator(".lang-switch button[data-mode=en]").get_attribute("aria-pressed") == "true"
    page.click(".lang-switch button[data-mode=zh]")
    assert _visible(page, "div.lang-zh") and not _visible(page, "div.lang-en")
    page.goto(url + "start.html")
    assert _visible(page, "div.lang-zh") and not _visible(page, "div.lang-en")
    page.click(".lang-switch button[data-mode=both]")
    assert _visible(page, "div.lang-zh") and _visible(page, "div.lang-en")


def _slider_numbers(page):
    weights = [float(x) for x in page.locator(".ws-weight").all_inner_texts()]
    summary = json.loads(page.locator(".ws-summary").inner_text())
    return weights, summary


def _set_factor(page, k: float):
    page.locator(".ws-range").evaluate("(el, k) => { el.value = String(k); el.dispatchEvent(new Event('input', {bubbles: true})); }", k)


def test_slider_moves_the_numbers(site, page):
    _, url = site
    page.goto(url + "path/ex0_weighted_sum.html")
    expected = json.loads(page.locator(".ws-slider").get_attribute("data-expected"))
    weights, summary = _slider_numbers(page)
    # At k = 1 the script agrees with what the build computed with the reference.
    assert weights == pytest.approx(expected["1"]["weights"], abs=1e-3)
    assert summary == pytest.approx(expected["1"]["summary"], abs=1e-3)
    _set_factor(page, 2.5)
    sharper, sharper_summary = _slider_numbers(page)
    assert sharper[0] > weights[0] and sharper[2] < weights[2], "sharper scores must give a larger first weight"
    assert sharper_summary != summary
    assert page.locator(".ws-factor").inner_text() == "2.50"
    _set_factor(page, 0)
    flat, flat_summary = _slider_numbers(page)
    assert flat == pytest.approx(expected["0"]["weights"], abs=1e-3)
    assert flat_summary == pytest.approx(expected["0"]["summary"], abs=1e-3)
    _set_factor(page, 1)
    page.locator(".ws-slider").scroll_into_view_if_needed()
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.stat().st_size > 10_000


def test_stub_downloads_serve_the_stubs(site, page):
    _, url = site
    for ex in IDS:
        page.goto(url + f"path/{ex}.html")
        # The stub's own link: a page may offer other downloads (an experiment's script).
        links = page.locator(f"a.reference.download[href$='/{ex}.py']")
        assert links.count() >= 1, ex
        with page.expect_download() as info:
            links.first.click()
        download = info.value
        assert download.suggested_filename == f"{ex}.py"
        assert Path(download.path()).read_bytes() == (ROOT / "exercises" / f"{ex}.py").read_bytes(), ex


def _search(page, url, query) -> list[str]:
    page.goto(url + "search.html?q=" + query)
    # The summary line is written once every result is listed.
    page.wait_for_function("() => document.querySelector('#search-results p.search-summary')?.textContent", timeout=20_000)
    return page.locator("#search-results ul.search li > a").evaluate_all("links => links.map(a => a.getAttribute('href'))")


def _pages_of(hrefs: list[str]) -> list[str]:
    return [href.split("#")[0] for href in hrefs]


def test_chinese_search_finds_the_right_pages(site, page):
    _, url = site
    masking = _search(page, url, "掩码")
    assert any("path/ex4_masking.html" in href for href in masking), masking
    attention = _search(page, url, "注意力")
    assert any("path/ex5_head.html" in href for href in attention), attention
    assert len(attention) >= 5, attention
    assert not page.errors, page.errors


@pytest.mark.parametrize("query", ["掩码", "mask", "注意力", "softmax"])
def test_search_lists_each_page_once(site, page, query):
    """The glossary matched "掩码" as text and as two index entries (its
    terms 掩码 and 因果掩码) and was listed three times."""
    _, url = site
    pages = _pages_of(_search(page, url, query))
    assert pages, query
    assert len(pages) == len(set(pages)), f"{query}: a page listed twice: {pages}"


def test_english_search_shows_english_excerpts(site, open_page):
    _, url = site
    p = open_page(DESKTOP, "en")
    hrefs = _search(p, url, "mask")
    assert any(href.startswith("path/ex4_masking.html") for href in hrefs), hrefs
    result = p.locator("#search-results li", has=p.locator("a[href^='path/ex4_masking.html']"))
    excerpt = result.locator("p.context")
    excerpt.wait_for(timeout=20_000)  # fetched from the page after the list is shown
    assert "mask" in excerpt.inner_text().lower()
    assert not CJK.search(result.inner_text()), f"Chinese in an English result: {result.inner_text()!r}"
    # Sphinx's own words on the search page are English too.
    assert p.locator("#search-results h2").inner_text() == "Search Results"
    assert not p.errors, p.errors


def test_the_report_keeps_its_columns(site, page):
    """The grader's report counts a CJK character as two columns, as a
    terminal does; in the browser every one of them must take exactly two
    columns of the monospace font too, whatever font draws it, or the table
    and the indented lines slide (they did, by one column a line)."""
    _, url = site
    page.goto(url + "path/ex4_masking.html")
    widths = page.evaluate(
        """() => {
            const pre = document.querySelector('div.grader-output.highlight-text pre');
            const probe = document.createElement('span');
            probe.textContent = '0000000000';
            pre.appendChild(probe);
            const column = probe.getBoundingClientRect().width / 10;
            probe.remove();
            const spans = [...pre.querySelectorAll('span.col1, span.col2')];
            const wide = [...pre.textContent].filter(c => c.codePointAt(0) > 127).length;
            return {column, wide, spans: spans.map(s => [s.className, s.getBoundingClientRect().width])};
        }"""
    )
    assert len(widths["spans"]) > 50
    assert len(widths["spans"]) == widths["wide"]  # every non-ASCII character is in a box
    for cls, w in widths["spans"]:
        want = widths["column"] * (2 if cls == "col2" else 1)
        assert abs(w - want) < 0.5, (cls, w, want)


# What sticks out of the screen, if anything: the document's width, and the
# element reaching furthest right that no scrolling box around it holds in.
_OVERFLOW = """() => {
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth <= width) return null;
    let worst = null;
    for (const el of document.body.querySelectorAll("*")) {
        const right = el.getBoundingClientRect().right;
        if (right <= width || (worst && right <= worst.right)) continue;
        let held = false;
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== "visible") { held = true; break; }
        }
        if (held) continue;
        const text = (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
        worst = {right: Math.round(right), what: `<${el.tagName.toLowerCase()} class="${el.className}"> ${text}`};
    }
    return {scrollWidth, worst};
}"""


def _wide(read: dict, pages=None) -> list[str]:
    return [f"{name}: {seen['overflow']['scrollWidth']} px wide, widest: {seen['overflow']['worst']}" for name, seen in read.items() if seen["overflow"] and (pages is None or name in pages)]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_no_page_scrolls_sideways(sweep, viewport):
    """Tables, code, reports and long titles stay inside the screen (they
    scroll inside their own box or wrap); the page itself never scrolls sideways."""
    read, errors = sweep(viewport)
    wide = _wide(read)
    assert not wide, f"wider than {viewport['width']} px:\n" + "\n".join(wide)
    assert not errors, errors


@pytest.mark.parametrize("mode", ["en", "zh"])
def test_path_pages_fit_a_phone_in_one_language(sweep, mode):
    read, errors = sweep(PHONE, mode)
    wide = _wide(read, [n for n in read if n.startswith("path/")])
    assert not wide, f"{mode}: wider than 390 px:\n" + "\n".join(wide)
    assert not errors, errors


_FIRST_SCREEN = """() => {
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
    const top = (els) => Math.min(...els.filter(shown).map((el) => el.getBoundingClientRect().top));
    const forms = [...document.querySelectorAll("form")].filter((f) => f.querySelector("input[name=q]"));
    const toPath = [...document.querySelectorAll("a[href]")].filter((a) => new URL(a.href).pathname.endsWith("/path/index.html"));
    return {search: top(forms), path: top(toPath)};
}"""


def test_search_and_path_on_a_phones_first_screen(sweep):
    """alabaster puts its sidebar (contents, search) below the page on a
    phone, thousands of pixels down: the top bar brings both up."""
    read, _ = sweep(PHONE)
    late = [
        f"{name}: search form at {found['search']}, link to the path at {found['path']}"
        for name, found in ((name, seen["firstScreen"]) for name, seen in read.items())
        if not found["search"] < PHONE["height"] or not found["path"] < PHONE["height"]
    ]
    assert not late, "\n".join(late)


def test_figures_open_at_full_size(sweep):
    read, _ = sweep(PHONE)
    checked = 0
    for name, seen in read.items():
        for link, src in seen["figures"]:
            assert link, f"{name}: a figure's image is not a link"
            assert link.split("?")[0] == src.split("?")[0], f"{name}: the figure links to {link}, not to its image {src}"
            with urllib.request.urlopen(link) as response:  # the server of the site fixture
                assert response.status == 200, link
                assert response.headers["Content-Type"].startswith("image/"), link
            checked += 1
    assert checked >= 5, "no figures found"


def test_the_slider_fits_a_phone(site, open_page):
    _, url = site
    for mode in ("both", "zh", "en"):
        p = open_page(PHONE, mode)
        p.goto(url + "path/ex0_weighted_sum.html")
        boxes = p.evaluate(
            """() => {
                const box = document.querySelector(".ws-slider").getBoundingClientRect();
                const rights = {};
                for (const sel of [".ws-table", ".ws-range", ".ws-control", ".ws-result"]) {
                    rights[sel] = document.querySelector(".ws-slider " + sel).getBoundingClientRect().right;
                }
                const name = document.querySelector(".ws-name .lang-zh");
                return {right: box.right, rights, nameLines: name.getClientRects().length, width: innerWidth};
            }"""
        )
        assert boxes["right"] <= boxes["width"], (mode, boxes)
        for sel, right in boxes["rights"].items():
            assert right <= boxes["right"] + 0.5, f"{mode}: {sel} sticks out of the slider's box: {boxes}"
        if mode != "en":
            assert boxes["nameLines"] == 1, f"{mode}: 锐度 broke across lines"


ZH_THEME_WORDS = ["导航", "快速搜索", "搜索", "提交", "索引", "上一页", "下一页", "相关页面"]
EN_THEME_WORDS = ["Navigation", "Quick search", "Search", "Go", "Index", "Previous", "Next", "Related Topics", "Documentation overview"]
# The text the reader sees: in English mode all of it but the code blocks, the
# grader's reports (they quote the grader, which writes both languages) and
# computed strings (they quote a program's output: the GPT writes Chinese, and
# may write 提交 after reading the teachers' pages).
_SHOWN_TEXT = """() => {
    const pre = [...document.querySelectorAll("pre, .computed-text")];
    pre.forEach((el) => (el.style.display = "none"));
    const text = document.body.innerText;
    pre.forEach((el) => (el.style.display = ""));
    return text;
}"""
# In Chinese mode the parts that the theme writes (the course's text has
# English words of its own); only those shown: innerText of an element that
# is not drawn is all of its text.
_THEME_TEXT = """() => [...document.querySelectorAll(
    ".sphinxsidebar, nav.topbar, .related, .footer, #search-documentation, #index, #search-results > h2, #search-results > p"
)].filter((el) => el.getClientRects().length).map((el) => el.innerText).join("\\n")"""


def _theme_words(text: str, words: list[str]) -> list[str]:
    return [w for w in words if re.search(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])", text)]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_theme_words_follow_the_language(sweep, open_page, viewport):
    """The site is built as zh_CN, so the theme wrote 导航, 搜索, 提交 … in
    English mode too: the templates give them in both languages now."""
    _, url = sweep.site
    found = []
    for mode, words, text in (("en", ZH_THEME_WORDS, "shownText"), ("zh", EN_THEME_WORDS, "themeText")):
        read, errors = sweep(viewport, mode)
        found += [f"{mode} {name}: {shown}" for name, seen in read.items() if (shown := _theme_words(seen[text], words))]
        assert not errors, errors
        p = open_page(viewport, mode)  # and a search's results
        p.goto(url + "search.html?q=mask")
        p.wait_for_function("() => document.querySelector('#search-results p.search-summary')?.textContent")
        if shown := _theme_words(p.evaluate(_SHOWN_TEXT if mode == "en" else _THEME_TEXT), words):
            found.append(f"{mode} search.html?q=mask: {shown}")
        assert not p.errors, p.errors
    assert not found, "\n".join(found)


def test_english_mode_shows_english_titles_and_checks(sweep):
    """Every "中文 · English" title shows its English half (ex5's quotes
    春江花月夜 in English and was left whole), and the checks tables only English."""
    read, errors = sweep(DESKTOP, "en")
    for name in [n for n in read if n.startswith("path/")]:
        titles = read[name]["titles"]
        assert titles, name
        assert not [t for t in titles if "·" in t], f"{name}: titles not split: {titles}"
        for table in read[name]["checkTables"]:
            assert not CJK.search(table), f"{name}: Chinese in a checks table: {table!r}"
    assert not errors, errors


def test_screenshots_of_the_masking_page(site, open_page):
    """For review: the masking page in both languages, its first two screens on a phone and on a desktop."""
    _, url = site
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("ex4-phone.png", PHONE), ("ex4-desktop.png", DESKTOP)):
        p = open_page(viewport)
        p.goto(url + "path/ex4_masking.html")
        clip = {"x": 0, "y": 0, "width": viewport["width"], "height": 2 * viewport["height"]}
        p.screenshot(path=str(SCREENSHOTS / name), full_page=True, clip=clip)
        assert (SCREENSHOTS / name).stat().st_size > 10_000
        assert not p.errors, p.errors
