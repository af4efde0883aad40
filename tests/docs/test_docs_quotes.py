"""A number the text sends the reader to check in the experiment is the number
the experiment printed, and a page never quotes one name for two values.

A page shows its experiment's code and the output it printed when the site
was built (docs/_ext/experiment.py). Text that mentions the experiment, and
the answer to a question that does, may only quote decimals the experiment
shows: printed, or a constant of its code (the −0.5 of head_size ** -0.5).
A page whose prose quotes the figure's random draw (variance 64.8) beside an
experiment that prints another (65.04) fails here. Text that asks the reader
to change the experiment first is left out: a changed run prints other numbers.
The second half holds the build's check that a ``{num}`` name keeps one value
on a page (computed.py).
"""

import copy
import re

import pytest
import torch
from bs4 import BeautifulSoup

from docs_site import built_site  # puts docs/_ext on the path  # isort: skip
from computed import Quotes, quoted_names

from grader.exercises import IDS

MENTIONS = re.compile(r"实验|experiment", re.I)
# "Change scores in the experiment": a changed run prints other numbers.
CHANGES = re.compile(r"改|change", re.I)
DECIMAL = re.compile(r"(?<![\w.])[-−]?\d+\.\d+")


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    return built_site("student", tmp_path_factory)


def decimals(text: str) -> list[str]:
    return DECIMAL.findall(text.replace("\u2212", "-"))


def printed_as(token: str, printed: list[float]) -> bool:
    """The token is one of the numbers, rounded to the digits it shows."""
    x = float(token.replace("−", "-"))
    digits = len(token.split(".")[1])
    return any(abs(x - y) <= 0.5 * 10**-digits + 1e-9 for y in printed)


def prose(node) -> str:
    """A block's text without its computed strings: those quote a program's
    output (the GPT's samples may well say 实验), not the page's own words."""
    node = copy.copy(node)
    for quoted in node.select(".computed-text"):
        quoted.decompose()
    return node.get_text(" ")


def quoting_blocks(soup) -> list:
    """Blocks that send the reader to the experiment: a text block (either language)
    that mentions it, and the answers to a question that does; not those that ask
    the reader to change it first."""
    blocks, asked = [], False
    body = soup.select_one("div.body") or soup
    for node in body.find_all(["div", "details"]):
        if node.find_parent(class_="experiment") or "experiment" in (node.get("class") or []):
            continue
        classes = node.get("class") or []
        if node.name == "details" and "answer" in classes:
            if asked:
                blocks += node.select("div.lang-zh, div.lang-en")
            asked = False
        elif {"lang-zh", "lang-en"} & set(classes) and not node.find_parent("details"):
            text = prose(node)
            said = bool(MENTIONS.search(text)) and not CHANGES.search(text)
            if said:
                blocks.append(node)
            # A question's two languages come one after the other: either one mentioning it counts.
            asked = said or (asked and "lang-en" in classes)
    return blocks


def quotes_of(page) -> tuple[str, list[tuple[str, str]]]:
    """What the experiment shows (its code and its output) and the decimals quoted from it."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    shown = soup.select("div.experiment pre")
    printed = "\n".join(pre.get_text() for pre in shown)
    quoted = [(token, block.get_text(" ", strip=True)) for block in quoting_blocks(soup) for token in decimals(prose(block))]
    return printed, quoted


@pytest.mark.parametrize("exercise", IDS)
def test_numbers_sent_to_the_experiment_are_what_it_printed(student, exercise):
    printed, quoted = quotes_of(student / "path" / f"{exercise}.html")  # printed: its code's constants count too
    assert printed, f"{exercise}'s page shows no experiment"
    numbers = [float(t) for t in decimals(printed)]
    wrong = [(token, text[:160]) for token, text in quoted if not printed_as(token, numbers)]
    assert not wrong, f"{exercise}: the text quotes numbers its experiment did not print: {wrong}"


def test_pages_do_quote_their_experiments(student):
    """The rule above is not empty: the pages that ask the reader to compare with
    the experiment's output quote it (ex3's variance, ex6's cosine)."""
    quoting = {ex for ex in IDS if quotes_of(student / "path" / f"{ex}.html")[1]}
    assert {"ex3_scaling", "ex6_block"} <= quoting


# --- the build's own check (no build needed) ----------------------------------


def test_a_name_quoted_twice_with_two_values_is_caught():
    quotes = Quotes()
    namespace = {"loss": torch.tensor(4.223)}
    assert not quotes.changed("loss.item()", namespace, 69)
    namespace["loss"] = torch.tensor(4.249)  # a later block reuses the name for another model
    problems = quotes.changed("loss.item()|.3f", namespace, 383)
    assert problems and "line 69" in problems[0]


def test_a_recomputed_equal_value_and_functions_are_not_flagged():
    quotes = Quotes()
    namespace = {"head_size": 8, "w": torch.ones(3), "f": len}
    assert not quotes.changed("f(w) * head_size", namespace, 1)
    namespace.update(head_size=32 // 4, w=torch.ones(3), f=max)
    assert not quotes.changed("f(w) * head_size", namespace, 2)


def test_quoted_names_follow_the_expression():
    assert quoted_names('d["weights"].max()|.3f') == {"d"}
    assert quoted_names("1 / KEYS|.3f") == {"KEYS"}
    assert quoted_names("not python (") == set()
