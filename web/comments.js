// Comments on cards (issue 34): the ops applied to a board (a card carries only its count), their
// inverses for undo, and what the page knows of comment texts (loaded pages and live ops), which
// the undo of an edit or a remove needs. Pure: no DOM.

/** The op types about comments. */
export const COMMENT_OPS = new Set(['comment', 'editComment', 'removeComment']);

/** The most comment texts the page remembers (the oldest learned go first). */
const KNOWN_LIMIT = 2000;

/** Comment id → {item, text, mentions, member, name, at, edited?}: what the page has seen. */
export const known = new Map();

/** Remembers a comment (from a page or a committed op). */
export function learn(item, c) {
  if (!c || typeof c.id !== 'string') return;
  known.delete(c.id);
  known.set(c.id, { item, text: c.text, mentions: c.mentions ?? [], member: c.member, name: c.name, at: c.at, edited: c.edited });
  while (known.size > KNOWN_LIMIT) known.delete(known.keys().next().value);
}

const itemOf = (board, id) => board.items.find((it) => it.id === id) ?? null;

/** Applies a comment op (as sent or as committed) to `board`: the card's count; true when it changed. */
export function applyComment(board, op) {
  const it = itemOf(board, op.item);
  switch (op.type) {
    case 'comment':
      if (op.comment?.id) learn(op.item, op.comment);
      if (!it) return false;
      it.comments = (it.comments ?? 0) + 1;
      return true;
    case 'editComment': {
      const c = known.get(op.comment);
      if (c && op.edited !== undefined) Object.assign(c, { text: op.text, mentions: op.mentions ?? [], edited: op.edited });
      return false;
    }
    case 'removeComment':
      if (op.seq !== undefined) known.delete(op.comment);
      if (!it) return false;
      it.comments = Math.max(0, (it.comments ?? 0) - 1);
      if (it.comments === 0) delete it.comments;
      return true;
    default:
      return false;
  }
}

/**
 * The op that undoes a comment op: a comment's undo removes it (under the id the server chose,
 * filled in once it commits); an edit's puts the text back; a remove's writes it again (a new
 * comment: ids are never reused). Null when the page does not know the text.
 */
export function inverseComment(op) {
  switch (op.type) {
    case 'comment':
      return { type: 'removeComment', item: op.item, comment: op.comment?.id ?? null };
    case 'editComment': {
      const c = known.get(op.comment);
      return c ? { type: 'editComment', item: op.item, comment: op.comment, text: c.text, mentions: c.mentions } : null;
    }
    case 'removeComment': {
      const c = known.get(op.comment);
      return c ? { type: 'comment', item: op.item, text: c.text, mentions: c.mentions } : null;
    }
    default:
      return null;
  }
}
