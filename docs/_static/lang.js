// 中文, English or both: the reader's choice, kept across pages (localStorage).
"use strict";
(function () {
  const KEY = "attention-docs-lang";
  const MODES = ["zh", "en", "both"];

  function stored() {
    try {
      const mode = localStorage.getItem(KEY);
      return MODES.includes(mode) ? mode : "both";
    } catch (e) {
      return "both"; // storage blocked: show both languages
    }
  }

  function apply(mode) {
    document.documentElement.dataset.lang = mode;
    document.querySelectorAll(".lang-switch button").forEach((b) => {
      b.setAttribute("aria-pressed", String(b.dataset.mode === mode));
    });
  }

  function choose(mode) {
    try {
      localStorage.setItem(KEY, mode);
    } catch (e) {
      // not kept for the next page, but this page still switches
    }
    apply(mode);
  }

  // Titles are written "中文 · English" in the sources; give each half its
  // language so that it follows the choice like the text does.
  const CJK = /[\u3400-\u9fff]/;
  const SKIP = "pre, code, script, style, textarea, .bilingual-title";

  function span(cls, lang, text) {
    const s = document.createElement("span");
    s.className = cls;
    if (lang) s.lang = lang;
    s.textContent = text;
    return s;
  }

  function splitTitles(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found = [];
    while (walker.nextNode()) {
      const text = walker.currentNode;
      const at = text.data.indexOf(" · ");
      if (at < 0 || text.parentElement.closest(SKIP)) continue;
      const zh = text.data.slice(0, at);
      const en = text.data.slice(at + 3);
      if (CJK.test(zh) && !CJK.test(en)) found.push([text, zh, en]);
    }
    for (const [text, zh, en] of found) {
      const title = span("bilingual-title", "", "");
      title.append(span("lang-zh", "zh-CN", zh), span("title-sep", "", " · "), span("lang-en", "en", en));
      text.replaceWith(title);
    }
  }

  // The buttons are made here rather than in the page, so that they are not
  // part of the page's text (the search shows snippets of that text).
  const BUTTONS = [
    ["zh", "中文", "zh-CN"],
    ["en", "English", "en"],
    ["both", "中文 + English", ""],
  ];

  function addButtons() {
    document.querySelectorAll(".lang-switch").forEach((bar) => {
      for (const [mode, label, lang] of BUTTONS) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.mode = mode;
        b.textContent = label;
        if (lang) b.lang = lang;
        bar.append(b);
      }
    });
  }

  apply(stored()); // runs in <head>: the page is drawn in the chosen language from the start
  document.addEventListener("DOMContentLoaded", () => {
    addButtons();
    splitTitles(document.body);
    document.querySelectorAll(".lang-switch button").forEach((b) => {
      b.addEventListener("click", () => choose(b.dataset.mode));
    });
    apply(stored());
  });
})();
