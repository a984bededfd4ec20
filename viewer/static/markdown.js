// renderMarkdown turns a memory's text into DOM nodes for the common Markdown
// that agents write: paragraphs, headings, lists, quotes, fenced code, inline
// code, bold, italic and links. It never parses HTML: every piece of text
// becomes a text node, tags in a memory stay visible as text, and a link is
// made only for http, https and mailto addresses.
import { el } from "./dom.js";

const SAFE_URL = /^(https?:|mailto:)/i;
const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|__[^_\n]+__)|(\[[^\]\n]+\]\([^)\s]+\))|(\*[^*\s][^*\n]*\*|\b_[^_\s][^_\n]*_\b)/;

export function inline(text) {
  const out = [];
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) { out.push(rest); break; }
    if (m.index) out.push(rest.slice(0, m.index));
    const [tok] = m;
    if (m[1]) out.push(el("code", {}, tok.slice(1, -1)));
    else if (m[2]) out.push(el("strong", {}, inline(tok.slice(2, -2))));
    else if (m[3]) {
      const [, label, url] = tok.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/);
      out.push(SAFE_URL.test(url) ? el("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank" }, inline(label)) : tok);
    } else out.push(el("em", {}, inline(tok.slice(1, -1))));
    rest = rest.slice(m.index + tok.length);
  }
  return out;
}

// lines joins a paragraph's lines keeping its line breaks: memories are notes.
function lines(ls) {
  return ls.flatMap((l, i) => (i ? [el("br"), ...inline(l)] : inline(l)));
}

export function renderMarkdown(text) {
  const src = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks = [];
  let i = 0;
  const isList = (l) => /^\s*([-*+]|\d+[.)])\s+/.test(l);
  const special = (l) => /^(```|#{1,6}\s|>\s?)/.test(l) || isList(l);
  while (i < src.length) {
    const line = src[i];
    if (!line.trim()) { i++; continue; }
    if (line.startsWith("```")) {
      const body = [];
      for (i++; i < src.length && !src[i].startsWith("```"); i++) body.push(src[i]);
      i++; // the closing fence (or the end)
      blocks.push(el("pre", {}, el("code", {}, body.join("\n"))));
      continue;
    }
    const h = line.match(/^(#{1,6})\s+(.*)$/);
    if (h) {
      blocks.push(el(`h${Math.min(6, h[1].length + 2)}`, {}, inline(h[2])));
      i++;
      continue;
    }
    if (/^>\s?/.test(line)) {
      const body = [];
      for (; i < src.length && /^>\s?/.test(src[i]); i++) body.push(src[i].replace(/^>\s?/, ""));
      blocks.push(el("blockquote", {}, lines(body)));
      continue;
    }
    if (isList(line)) {
      const ordered = /^\s*\d+[.)]\s+/.test(line);
      const items = [];
      for (; i < src.length && isList(src[i]); i++) items.push(el("li", {}, inline(src[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ""))));
      blocks.push(el(ordered ? "ol" : "ul", {}, items));
      continue;
    }
    const body = [];
    for (; i < src.length && src[i].trim() && !special(src[i]); i++) body.push(src[i]);
    blocks.push(el("p", {}, lines(body)));
  }
  return blocks;
}
