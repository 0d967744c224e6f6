// Card content (issue 32): the ops about descriptions, due dates, tags, assignees and checklists
// applied to a board and inverted for undo, and what a card's face shows of them. Pure: no DOM.

/** The op types about card content besides `edit`. */
export const CONTENT_OPS = new Set(['tag', 'assign', 'addTag', 'editTag', 'removeTag', 'addCheck', 'editCheck', 'removeCheck']);

const itemOf = (board, id) => board.items.find((it) => it.id === id) ?? null;

/** Leaves an empty list out of `item`, as the server's snapshot does. */
function prune(item, key) {
  if (Array.isArray(item[key]) && item[key].length === 0) delete item[key];
}

/** The id a pending addTag or addCheck shows its tag or entry under until it commits. */
export const pendingContentId = (opId) => `~${opId}`;

/** Applies a content op (as sent or as committed) to `board`; true when it changed. */
export function applyContent(board, op) {
  switch (op.type) {
    case 'tag': {
      const it = itemOf(board, op.item);
      if (!it) return false;
      const tags = (it.tags ?? []).filter((t) => !(op.remove ?? []).includes(t));
      for (const t of op.add ?? []) if (!tags.includes(t)) tags.push(t);
      it.tags = tags;
      prune(it, 'tags');
      return true;
    }
    case 'assign': {
      const it = itemOf(board, op.item);
      if (!it) return false;
      const people = (it.assignees ?? []).filter((p) => !(op.remove ?? []).includes(p.member));
      for (const p of op.add ?? []) if (!people.some((q) => q.member === p.member)) people.push({ member: p.member, name: p.name });
      it.assignees = people;
      prune(it, 'assignees');
      return true;
    }
    case 'addTag': {
      const tag = { id: op.tag?.id ?? pendingContentId(op.op), name: String(op.tag?.name ?? ''), color: op.tag?.color ?? '#888' };
      if ((board.tags ?? []).some((t) => t.id === tag.id)) return false;
      board.tags = [...(board.tags ?? []), tag];
      // …on the cards it names at once (the undo of a removeTag).
      for (const id of op.items ?? []) {
        const it = itemOf(board, id);
        if (it && !(it.tags ?? []).includes(tag.id)) it.tags = [...(it.tags ?? []), tag.id];
      }
      return true;
    }
    case 'editTag': {
      const tag = (board.tags ?? []).find((t) => t.id === op.tag);
      if (!tag) return false;
      if (typeof op.name === 'string') tag.name = op.name;
      if (typeof op.color === 'string') tag.color = op.color;
      return true;
    }
    case 'removeTag': {
      if (!(board.tags ?? []).some((t) => t.id === op.tag)) return false;
      board.tags = board.tags.filter((t) => t.id !== op.tag);
      if (!board.tags.length) delete board.tags;
      for (const it of board.items) {
        if (it.tags?.includes(op.tag)) {
          it.tags = it.tags.filter((t) => t !== op.tag);
          prune(it, 'tags');
        }
      }
      return true;
    }
    case 'addCheck': {
      const it = itemOf(board, op.item);
      if (!it) return false;
      const check = op.check ? { ...op.check } : { id: pendingContentId(op.op), text: String(op.text ?? ''), done: false };
      const list = it.checklist ?? [];
      const at = op.before == null ? -1 : list.findIndex((c) => c.id === op.before);
      if (at >= 0) list.splice(at, 0, check);
      else list.push(check);
      it.checklist = list;
      return true;
    }
    case 'editCheck': {
      const check = itemOf(board, op.item)?.checklist?.find((c) => c.id === op.check);
      if (!check) return false;
      if (typeof op.text === 'string') check.text = op.text;
      if (typeof op.done === 'boolean') check.done = op.done;
      return true;
    }
    case 'removeCheck': {
      const it = itemOf(board, op.item);
      if (!it?.checklist?.some((c) => c.id === op.check)) return false;
      it.checklist = it.checklist.filter((c) => c.id !== op.check);
      prune(it, 'checklist');
      return true;
    }
    default:
      return false;
  }
}

/** The op that undoes a content op, given the board just before it; null when none can. */
export function inverseContent(op, before) {
  const it = op.item ? itemOf(before, op.item) : null;
  switch (op.type) {
    case 'tag': {
      if (!it) return null;
      const had = it.tags ?? [];
      // Only what the op changed goes back: a tag it added that the card already had stays.
      const add = (op.remove ?? []).filter((t) => had.includes(t));
      const remove = (op.add ?? []).filter((t) => !had.includes(t));
      return add.length || remove.length ? { type: 'tag', item: op.item, add, remove } : null;
    }
    case 'assign': {
      if (!it) return null;
      const had = it.assignees ?? [];
      const add = had.filter((p) => (op.remove ?? []).includes(p.member));
      const remove = (op.add ?? []).map((p) => p.member).filter((m) => !had.some((p) => p.member === m));
      return add.length || remove.length ? { type: 'assign', item: op.item, add, remove } : null;
    }
    case 'addTag':
      return { type: 'removeTag', tag: op.tag?.id ?? null };
    case 'editTag': {
      const tag = (before.tags ?? []).find((t) => t.id === op.tag);
      if (!tag) return null;
      const inverse = { type: 'editTag', tag: op.tag };
      if (op.name !== undefined) inverse.name = tag.name;
      if (op.color !== undefined) inverse.color = tag.color;
      return inverse;
    }
    case 'removeTag': {
      // A removed tag cannot come back under its id: the undo makes it again, on the cards that
      // had it, in one addTag (`restoresTag`: other steps naming the old id follow the new one).
      const tag = (before.tags ?? []).find((t) => t.id === op.tag);
      if (!tag) return null;
      const items = before.items.filter((i) => i.tags?.includes(op.tag)).map((i) => i.id);
      return { type: 'addTag', tag: { name: tag.name, color: tag.color }, ...(items.length ? { items } : {}), restoresTag: op.tag };
    }
    case 'addCheck':
      return { type: 'removeCheck', item: op.item, check: op.check?.id ?? null };
    case 'editCheck': {
      const check = it?.checklist?.find((c) => c.id === op.check);
      if (!check) return null;
      const inverse = { type: 'editCheck', item: op.item, check: op.check };
      if (op.text !== undefined) inverse.text = check.text;
      if (op.done !== undefined) inverse.done = check.done;
      return inverse;
    }
    case 'removeCheck': {
      const list = it?.checklist ?? [];
      const i = list.findIndex((c) => c.id === op.check);
      if (i < 0) return null;
      return { type: 'addCheck', item: op.item, before: list[i + 1]?.id ?? null, text: list[i].text };
    }
    default:
      return null;
  }
}

/**
 * Whether a due date is past (`overdue`), within two days (`soon`), or neither (null), at
 * `now` (ms). A date without a time is due at the end of that day (UTC).
 */
export function dueState(due, now) {
  if (typeof due !== 'string') return null;
  const at = Date.parse(due.length === 10 ? `${due}T23:59:59Z` : due.replace('Z', ':00Z'));
  if (Number.isNaN(at)) return null;
  if (at < now) return 'overdue';
  return at - now <= 2 * 86_400_000 ? 'soon' : null;
}

/** `2/5` for a checklist with 2 of 5 entries ticked; '' without one. */
export function checklistProgress(item) {
  const list = item.checklist ?? [];
  return list.length ? `${list.filter((c) => c.done).length}/${list.length}` : '';
}

/** A person's initials for a card face: the first letters of up to two words. */
export function initials(name) {
  const words = String(name ?? '').trim().split(/\s+/).filter(Boolean);
  return words.slice(0, 2).map((w) => [...w][0].toUpperCase()).join('') || '?';
}

/** The filter bar's filter from a page's query (`q`, `tag`, `who`, `due`). */
export function filterFrom(params) {
  const due = params.get('due');
  return {
    text: (params.get('q') ?? '').slice(0, 200),
    tag: params.get('tag') ?? '',
    who: params.get('who') ?? '',
    due: ['overdue', 'week', 'none'].includes(due) ? due : '',
  };
}

/** True when the filter picks nothing out (every card shows). */
export const filterIsEmpty = (f) => !f.text && !f.tag && !f.who && !f.due;

/**
 * Whether `item` matches filter `f` at `now` (ms): its label, detail, description or a checklist
 * entry contains the text (case-insensitive); it has the tag; the member is assigned; its due date
 * is past (`overdue`), within the next 7 days (`week`) or not set (`none`).
 */
export function matchesFilter(item, f, now) {
  if (f.text) {
    const needle = f.text.toLowerCase();
    const hay = [item.label, item.detail, item.description, ...(item.checklist ?? []).map((c) => c.text)];
    if (!hay.some((s) => typeof s === 'string' && s.toLowerCase().includes(needle))) return false;
  }
  if (f.tag && !(item.tags ?? []).includes(f.tag)) return false;
  if (f.who && !(item.assignees ?? []).some((p) => p.member === f.who)) return false;
  if (f.due === 'none') return !item.due;
  if (f.due) {
    if (!item.due) return false;
    const state = dueState(item.due, now);
    if (f.due === 'overdue') return state === 'overdue';
    const at = Date.parse(item.due.length === 10 ? `${item.due}T23:59:59Z` : item.due.replace('Z', ':00Z'));
    return at >= now && at - now <= 7 * 86_400_000;
  }
  return true;
}

/** Whether a due date the user typed is one the server takes: a real day, `YYYY-MM-DD`. */
export function isDueDate(s) {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}Z)?$/.test(s)) return false;
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}
