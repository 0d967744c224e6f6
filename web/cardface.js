// A card face's content for the view (view.js): tag chips, a description mark, the due badge,
// checklist progress, the comment count and the assignees' initials, all as text.

import { el } from './dom.js';
import { icon } from './icons.js';
import { checklistProgress, dueState, initials } from './cards.js';

/**
 * A card face's content (issue 32): tag chips, a description mark, the due badge (overdue and
 * due soon look different), checklist progress and the assignees' initials, all as text. Built
 * again only when what it shows changed.
 */
export function cardFace(doc, meta, item, tags) {
  const due = dueState(item.due, Date.now());
  const key = JSON.stringify([item.tags, item.assignees, item.due, due, checklistProgress(item), !!item.description,
    item.comments ?? 0,
    (item.tags ?? []).map((t) => tags.find((x) => x.id === t))]);
  if (meta.dataset.key === key) return;
  meta.dataset.key = key;
  const parts = [];
  for (const id of item.tags ?? []) {
    const tag = tags.find((t) => t.id === id);
    if (tag) parts.push(el(doc, 'span', { className: 'chip', text: tag.name, style: { '--chip-color': tag.color } }));
  }
  if (item.description) parts.push(el(doc, 'span', { className: 'has-description', text: '¶', attrs: { title: 'Has a description', 'aria-label': 'Has a description' } }));
  if (item.due) {
    const text = item.due.slice(0, 10);
    parts.push(el(doc, 'span', {
      className: `due${due ? ` due-${due}` : ''}`, text: due === 'overdue' ? `Overdue ${text}` : `Due ${text}`,
      dataset: { due: due ?? 'later' },
    }));
  }
  const progress = checklistProgress(item);
  if (progress) parts.push(el(doc, 'span', { className: 'progress', text: `☑ ${progress}`, attrs: { 'aria-label': `Checklist ${progress}` } }));
  // The snapshot carries only how many comments a card has (their texts are read when it opens).
  const comments = Number.isInteger(item.comments) && item.comments > 0 ? item.comments : 0;
  if (comments) {
    const said = comments === 1 ? '1 comment' : `${comments} comments`;
    parts.push(el(doc, 'span', { className: 'comment-count', attrs: { title: said, 'aria-label': said } },
      icon(doc, 'comment'), String(comments)));
  }
  // The assignees' initials stay together, at the end of the line.
  const faces = (item.assignees ?? []).map((p) => el(doc, 'span', {
    className: 'initials', text: initials(p.name), attrs: { title: p.name, 'aria-label': `Assigned to ${p.name}` },
  }));
  if (faces.length) parts.push(el(doc, 'span', { className: 'assignees' }, ...faces));
  meta.replaceChildren(...parts);
  meta.hidden = parts.length === 0;
}
