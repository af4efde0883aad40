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
    themeWords(mode);
    altTexts(mode);
  }

  // A generated figure's alt text is "中文 / English" in the page
  // (docs/_ext/figure_gen.py); with one language chosen it is that one's.
  function altTexts(mode) {
    document.querySelectorAll("img[data-alt-zh][data-alt-en]").forEach((img) => {
      const { altZh, altEn } = img.dataset;
      img.alt = mode === "zh" ? altZh : mode === "en" ? altEn : `${altZh} / ${altEn}`;
      if (mode === "zh") img.lang = "zh-CN";
      else if (mode === "en") img.lang = "en";
      else img.removeAttribute("lang");
    });
  }

  // Sphinx's scripts write a few words of their own ("Search Results", "Hide
  // Search Matches", …) through Documentation.gettext, from the zh_CN catalogue
  // of translations.js (loaded before this file). Their catalogue is kept and
  // the one they read is rebuilt for each choice: Chinese, English (no
  // translation), or both as "中文 / English". This reaches only the words
  // written after the choice; the search page writes its words after loading.
  // (doctools.js declares it with const: a global name, not a property of window)
  const DOC = typeof Documentation === "undefined" ? null : Documentation;
  const CATALOG = DOC ? { ...DOC.TRANSLATIONS } : {};

  function themeWords(mode) {
    if (!DOC) return;
    const words = DOC.TRANSLATIONS;
    for (const key of Object.keys(words)) delete words[key];
    for (const [en, zh] of Object.entries(CATALOG)) {
      if (mode === "zh") words[en] = zh;
      else if (mode === "both" && typeof zh === "string") words[en] = zh === en ? zh : `${zh} / ${en}`;
    }
  }

  if (DOC) {
    // Called as Documentation.ngettext (never through a saved name), so it can be replaced.
    // The number is filled in here: the caller replaces one "${resultCount}"
    // (String.replace with a string replaces the first only), and "中文 / English"
    // has one in each half. The only number ngettext is given is n.
    const fill = (text, n) => text.replace(/\$\{\w+\}/g, String(n));
    DOC.ngettext = (singular, plural, n) => {
      const en = n === 1 ? singular : plural;
      const zh = CATALOG[singular];
      const mode = document.documentElement.dataset.lang;
      if (zh === undefined || mode === "en") return fill(en, n);
      const zhText = typeof zh === "string" ? zh : zh[0]; // Chinese has one form for every n
      return fill(mode === "zh" ? zhText : `${zhText} / ${en}`, n);
    };
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
  // language so that it follows the choice like the text does. The English
  // half may quote Chinese ("A head reading 春江花月夜"): Chinese characters
  // there are allowed when the Chinese half has them all. A search result's
  // title is "page > section", each part of it a title.
  const CJK = /[\u3400-\u9fff]/;
  const CJK_ALL = /[\u3400-\u9fff]/g;
  const SKIP = "pre, code, script, style, textarea, .bilingual-title";

  function span(doc, cls, lang, text) {
    const s = doc.createElement("span");
    s.className = cls;
    if (lang) s.lang = lang;
    s.textContent = text;
    return s;
  }

  function halves(text) {
    const at = text.indexOf(" · ");
    if (at < 0) return null;
    const zh = text.slice(0, at);
    const en = text.slice(at + 3);
    if (!CJK.test(zh) || !/[A-Za-z]/.test(en)) return null;
    const quoted = en.match(CJK_ALL) || [];
    return quoted.every((c) => zh.includes(c)) ? [zh, en] : null;
  }

  function splitTitle(doc, data) {
    const parts = data.split(" > ").map((part) => [part, halves(part)]);
    if (!parts.some(([, h]) => h)) return null;
    const out = doc.createDocumentFragment();
    parts.forEach(([part, h], i) => {
      if (i) out.append(" > ");
      if (!h) {
        out.append(part);
        return;
      }
      const title = span(doc, "bilingual-title", "", "");
      title.append(span(doc, "lang-zh", "zh-CN", h[0]), span(doc, "title-sep", "", " · "), span(doc, "lang-en", "en", h[1]));
      out.append(title);
    });
    return out;
  }

  function splitTitles(root) {
    const doc = root.ownerDocument || root;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found = [];
    while (walker.nextNode()) {
      const text = walker.currentNode;
      if (!text.data.includes(" · ") || text.parentElement.closest(SKIP)) continue;
      const split = splitTitle(doc, text.data);
      if (split) found.push([text, split]);
    }
    for (const [text, split] of found) text.replaceWith(split);
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

  // For search_lang.js: the search's excerpts come from pages fetched as text.
  window.attentionLang = {
    mode: () => document.documentElement.dataset.lang,
    splitTitles,
    // What the current choice hides (lang.css), for text taken out of a page.
    hidden: () => ({ zh: ".lang-en, .title-sep", en: ".lang-zh, .title-sep" })[document.documentElement.dataset.lang] || null,
  };

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
