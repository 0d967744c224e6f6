// The op names of the wire protocol v1 (docs/protocol.md), listed once for JavaScript: the SDK
// (wire.js, the client) and the page (protocol.js, session.js, pending.js) all take them from
// here. Each op's kind says what it changes: `place` (where tiles are), `paint` (a tile's on/off),
// `edit` (a board's content: cards, columns, the title, a restore) or `content` (a card's
// description, tags, assignees and checklist; issue 32). Its noun is how the page names it in a
// sentence ("Your move of …").

/** Every committed (numbered) op: its kind and noun. */
export const OPS = Object.freeze({
  swap: { kind: 'place', noun: 'swap' },
  move: { kind: 'place', noun: 'move' },
  toggle: { kind: 'paint', noun: 'paint' },
  add: { kind: 'edit', noun: 'new card' },
  edit: { kind: 'edit', noun: 'edit' },
  remove: { kind: 'edit', noun: 'removal' },
  addZone: { kind: 'edit', noun: 'new column' },
  editZone: { kind: 'edit', noun: 'column rename' },
  removeZone: { kind: 'edit', noun: 'column removal' },
  retitle: { kind: 'edit', noun: 'board rename' },
  restore: { kind: 'edit', noun: 'restore' },
  tag: { kind: 'content', noun: 'tags' },
  assign: { kind: 'content', noun: 'assignees' },
  addTag: { kind: 'content', noun: 'new tag' },
  editTag: { kind: 'content', noun: 'tag change' },
  removeTag: { kind: 'content', noun: 'tag removal' },
  addCheck: { kind: 'content', noun: 'checklist entry' },
  editCheck: { kind: 'content', noun: 'checklist change' },
  removeCheck: { kind: 'content', noun: 'checklist removal' },
  comment: { kind: 'content', noun: 'comment' },
  editComment: { kind: 'content', noun: 'comment edit' },
  removeComment: { kind: 'content', noun: 'comment removal' },
  moveMany: { kind: 'place', noun: 'move of several cards' },
  archive: { kind: 'edit', noun: 'archiving' },
  unarchive: { kind: 'edit', noun: 'restore from the archive' },
});

/** Types of committed (numbered) ops. */
export const OP_TYPES = new Set(Object.keys(OPS));

/** The ops that change a board's content rather than where its tiles are (issue 19). */
export const EDIT_TYPES = new Set(Object.keys(OPS).filter((t) => OPS[t].kind === 'edit'));
