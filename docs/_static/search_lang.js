// The search page, loaded after Sphinx's searchtools.js: each page once, and
// excerpts and titles in the reader's language (see lang.js).
"use strict";
(function () {
  const lang = window.attentionLang;

  // One result per page. A page can match several ways: its text, a section
  // title, an index entry (each glossary term is one, in both languages), and
  // Sphinx lists each way with its own anchor, so the glossary came up three
  // times for "掩码". The results come lowest score first (they are shown
  // from the end), so the last one of each page is its best: keep that one.
  const performSearch = Search._performSearch;
  Search._performSearch = (...args) => {
    const seen = new Set();
    return performSearch(...args)
      .reverse()
      .filter(([docName]) => !seen.has(docName) && seen.add(docName))
      .reverse();
  };

  // The excerpt is cut from the fetched page's text, where both languages
  // are present: drop the half the reader has hidden before it is cut.
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const hidden = lang && lang.hidden();
    if (!hidden) return htmlToText(htmlString, anchor);
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    lang.splitTitles(page.body); // "中文 · English" titles, as lang.js splits them on the page
    page.querySelectorAll(hidden).forEach((el) => el.remove());
    return htmlToText(page.documentElement.outerHTML, anchor);
  };

  // The results' titles are "中文 · English" text too: split them as they
  // come. Watched from the start: the first result can be shown as soon as
  // the page is parsed, before a DOMContentLoaded handler of this file runs.
  if (lang) {
    new MutationObserver((changes) => {
      for (const change of changes) {
        change.addedNodes.forEach((node) => {
          if (node.nodeType === Node.ELEMENT_NODE && node.closest("#search-results")) lang.splitTitles(node);
        });
      }
    }).observe(document.documentElement, { childList: true, subtree: true });
  }
})();
