"""README.md is the front door (issue 39): its teacher's topics are links to
the docs pages that hold them, written as relative paths to the .md files so
that they work on GitHub. Every relative link must name a file the project
holds, and every page of docs/teachers/ must be reachable from the README."""

from pathlib import Path

from readme_sections import ROOT, markdown_links


def _relative_links() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [t.split("#", 1)[0] for t in markdown_links(text) if "://" not in t and not t.startswith("#")]


def test_every_relative_link_names_a_file():
    links = _relative_links()
    assert links, "README.md links to no file"
    missing = [t for t in links if not (ROOT / t).is_file()]
    assert not missing, f"README.md links to files that are not there: {missing}"


def test_every_teachers_page_is_linked():
    pages = {str(p.relative_to(ROOT)) for p in Path(ROOT, "docs", "teachers").glob("*.md") if p.name != "index.md"}
    assert pages <= set(_relative_links()), f"README.md links to none of {sorted(pages - set(_relative_links()))}"
