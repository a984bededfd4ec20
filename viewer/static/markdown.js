// renderMarkdown turns a memory's text into DOM nodes: marked parses the
// Markdown (GitHub's flavour: tables, fenced code, task lists), DOMPurify
// sanitises what marked made. Memories are written by agents, so nothing in
// one may run or load anything:
//   - HTML in a memory is shown as text, never parsed (a tag stays visible);
//   - images become links (the page loads no remote image: CSP img-src);
//   - links go only to http, https and mailto addresses, open in a new tab and
//     pass no referrer; any other link is kept as its text alone;
//   - DOMPurify keeps only the elements Markdown makes, with no style, event
//     handler or id attribute, whatever slipped through the steps above.
import { Marked } from "./vendor/marked/marked.esm.js";
import DOMPurify from "./vendor/dompurify/purify.es.mjs";

const SAFE_URL = /^(https?:|mailto:)/i;

function escapeHTML(s) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  breaks: true, // memories are notes: a line break is meant
  renderer: {
    html: ({ text }) => escapeHTML(text),
    image: ({ href, text }) => `<a href="${escapeHTML(href)}">image: ${escapeHTML(text || href)}</a>`,
    checkbox: ({ checked }) => (checked ? "☑ " : "☐ "),
    // A memory's headings sit under the page's h1 and h2.
    heading({ tokens, depth }) {
      const level = Math.min(6, depth + 2);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
  },
});

// Our own DOMPurify instance: its hooks touch no other user of the library.
const purify = DOMPurify(window);
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName !== "A") return;
  const href = node.getAttribute("href") || "";
  if (!SAFE_URL.test(href)) {
    node.removeAttribute("href"); // an anchor without href is plain text
    return;
  }
  node.setAttribute("rel", "noopener noreferrer nofollow");
  node.setAttribute("target", "_blank");
});

const ALLOWED_TAGS = ["p", "br", "hr", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code",
  "em", "strong", "del", "a", "table", "thead", "tbody", "tr", "th", "td"];
const ALLOWED_ATTR = ["href", "title", "align", "start", "class"];

// renderMarkdown returns a DocumentFragment of the memory's text.
export function renderMarkdown(text) {
  return purify.sanitize(marked.parse(text), { ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true });
}
