"""Chinese search: jieba splits the text, and the search page loads without an error.

Sphinx's own Chinese search ships the English stemmer for the Latin words but
tells the page it is called ``ChineseStemmer``, which does not exist: the
search page then fails with "ChineseStemmer is not defined" (seen with
Sphinx 9.0). This subclass ships the same stemmer under its real name.
"""

from sphinx.search import _MINIFIED_JS_PATH
from sphinx.search.zh import SearchChinese


class ChineseSearch(SearchChinese):
    js_stemmer_rawcode = ""  # use js_stemmer_code below instead of Sphinx's generated glue
    js_stemmer_code = "\n".join(
        (
            (_MINIFIED_JS_PATH / "base-stemmer.js").read_text(encoding="utf-8"),
            (_MINIFIED_JS_PATH / "english-stemmer.js").read_text(encoding="utf-8"),
            "window.Stemmer = EnglishStemmer;",
        )
    )


def setup(app):
    app.add_search_language(ChineseSearch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
