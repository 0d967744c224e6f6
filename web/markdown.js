// A small, safe Markdown renderer for card descriptions (issue 32): headings, emphasis, lists,
// code, quotes and links, built as DOM nodes with textContent, never innerHTML. Raw HTML is shown
// as the text it is; links go only to http, https and mailto, with rel="noopener noreferrer".

import { el } from './dom.js';

/** The link targets a description may have. */
export function safeHref(url) {
  const text = String(url).trim();
  return /^(https?:\/\/|mailto:)/i.test(text) ? text : null;
}

/** Appends the inline Markdown of `text` (code, bold, italic, links) to `parent`. */
function inline(doc, parent, text) {
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) parent.append(doc.createTextNode(text.slice(last, m.index)));
    if (m[1] !== undefined) parent.append(el(doc, 'code', { text: m[1] }));
    else if (m[2] !== undefined) parent.append(inlineIn(doc, 'strong', m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) parent.append(inlineIn(doc, 'em', m[3] ?? m[4]));
    else {
      const href = safeHref(m[6]);
      if (href) {
        parent.append(el(doc, 'a', { text: m[5], href, target: '_blank', attrs: { rel: 'noopener noreferrer' } }));
      } else {
        parent.append(doc.createTextNode(m[0])); // A link anywhere else stays text.
      }
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(doc.createTextNode(text.slice(last)));
  return parent;
}

const inlineIn = (doc, tag, text) => inline(doc, doc.createElement(tag), text);

/** The description `source` rendered as a DocumentFragment of `doc`. */
export function renderMarkdown(doc, source) {
  const out = doc.createDocumentFragment();
  const lines = String(source ?? '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const body = [];
      i += 1;
      while (i < lines.length && !/^```/.test(lines[i])) body.push(lines[i++]);
      i += 1;
      out.append(el(doc, 'pre', {}, el(doc, 'code', { text: body.join('\n') })));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      out.append(inlineIn(doc, `h${Math.min(6, heading[1].length + 2)}`, heading[2]));
      i += 1;
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quote = el(doc, 'blockquote');
      while (i < lines.length && /^>\s?/.test(lines[i])) quote.append(inlineIn(doc, 'p', lines[i++].replace(/^>\s?/, '')));
      out.append(quote);
      continue;
    }
    const bullet = /^\s*([-*+]|\d+[.)])\s+/;
    if (bullet.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = el(doc, ordered ? 'ol' : 'ul');
      while (i < lines.length && bullet.test(lines[i])) list.append(inlineIn(doc, 'li', lines[i++].replace(bullet, '')));
      out.append(list);
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|>|```|\s*([-*+]|\d+[.)])\s)/.test(lines[i])) para.push(lines[i++]);
    out.append(inlineIn(doc, 'p', para.join(' ')));
  }
  return out;
}
