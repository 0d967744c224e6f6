// What screen readers hear about other people's changes: one sentence per committed op
// ("Ann moved Orange before Teal"), and a throttle that says at most one thing every couple of
// seconds, folding what came in between into one sentence. Pure: no DOM, no timers of its own
// (the clock and the scheduler are passed in, as for the hover throttle).

import { isolate } from './bidi.js';
import { zoneLayout } from './layout.js';
import { describeChange } from './history.js';

/** `describeChange`'s parts as one sentence, each text a client wrote isolated (bidi.js). */
const spoken = (parts) => parts.map((p) => (typeof p === 'string' ? p : isolate(p.em ?? p.bdi))).join('');

/** At most one polite announcement this often (ms). */
export const ANNOUNCE_INTERVAL = 2000;

/** How many people's changes a folded announcement names; the rest are counted. */
const NAMED = 3;

/**
 * One committed op `m` as a change for the announcer: {by, name, kind, text}, or null for an op
 * that names nothing on `board`. `board` is the board just before `m` (so a move says where the
 * item came from); `nameOf(userId)` gives display names.
 */
export function describeOp(m, board, nameOf = (id) => id) {
  if (!board) return null;
  const name = nameOf(m.by) || m.by;
  const who = isolate(name);
  const label = (id) => isolate(board.items.find((i) => i.id === id)?.label ?? id);
  const zoneTitle = (at, id) => isolate(at >= 0 ? zoneLayout(board, board.zones[at], at).title : id);
  const zoneIndex = (id) => board.zones.findIndex((z) => z.items.includes(id));
  let text;
  switch (m.type) {
    case 'swap':
      text = `${who} swapped ${label(m.a)} and ${label(m.b)}`;
      break;
    case 'toggle':
      text = `${who} turned ${label(m.item)} ${m.on ? 'on' : 'off'}`;
      break;
    case 'move': {
      const to = board.zones.findIndex((z) => z.id === m.zone);
      const title = zoneTitle(to, m.zone);
      const same = to >= 0 && zoneIndex(m.item) === to;
      if (m.before != null && same) text = `${who} moved ${label(m.item)} before ${label(m.before)}`;
      else if (m.before != null) text = `${who} moved ${label(m.item)} to ${title}, before ${label(m.before)}`;
      else text = `${who} moved ${label(m.item)} to the end of ${title}`;
      break;
    }
    case 'add': {
      const to = board.zones.findIndex((z) => z.id === m.zone);
      const title = zoneTitle(to, m.zone);
      text = `${who} added ${m.item?.label != null ? isolate(m.item.label) : 'a card'} to ${title}`;
      break;
    }
    case 'edit':
      if (typeof m.label === 'string') text = `${who} renamed ${label(m.item)} to ${isolate(m.label)}`;
      else if (m.description === undefined && m.due === undefined) text = `${who} changed ${label(m.item)}`;
      else text = spoken(describeChange({ by: { name }, op: m }, board));
      break;
    case 'tag': case 'assign': case 'addTag': case 'editTag': case 'removeTag': case 'addCheck': case 'editCheck':
    case 'removeCheck': case 'comment': case 'editComment': case 'removeComment': case 'moveMany': case 'archive':
    case 'unarchive':
      // Card content (issue 32), in the words History uses: "Ann tagged Fix the login page with Bug".
      text = spoken(describeChange({ by: { name }, op: m }, board));
      break;
    case 'remove':
      text = `${who} removed ${label(m.item)}`;
      break;
    case 'addZone':
      text = `${who} added the column ${isolate(m.zone?.title ?? '')}`;
      break;
    case 'editZone': {
      const at = board.zones.findIndex((z) => z.id === m.zone);
      const title = zoneTitle(at, m.zone);
      text = typeof m.title === 'string' ? `${who} renamed the column ${title} to ${isolate(m.title)}` : `${who} changed the column ${title}`;
      break;
    }
    case 'removeZone': {
      const at = board.zones.findIndex((z) => z.id === m.zone);
      text = `${who} removed the column ${zoneTitle(at, m.zone)}`;
      break;
    }
    case 'retitle':
      text = `${who} renamed the board to ${isolate(m.title)}`;
      break;
    case 'restore':
      text = `${who} restored the board as of change ${m.to}`;
      break;
    default:
      return null;
  }
  return { by: m.by, name, kind: m.type, text, ...(m.type === 'restore' ? { to: m.to } : {}) };
}

/**
 * Changes by the same person, in the order people first appear: folds `event` (from describeOp)
 * into `groups` (a Map user id → {name, count, toggles, text}; `toggles`: every change was a
 * toggle; `text`: the first change's sentence). Returns false when `groups` already holds `cap`
 * people and `event` is by someone else (the caller counts it instead).
 */
export function fold(groups, event, cap = Infinity) {
  const g = groups.get(event.by);
  if (g) {
    g.count += 1;
    g.toggles &&= event.kind === 'toggle';
    return true;
  }
  if (groups.size >= cap) return false;
  groups.set(event.by, { name: event.name, count: 1, toggles: event.kind === 'toggle', text: event.text });
  return true;
}

/**
 * The sentence for the changes of one throttle window, folded by person (`fold`): a lone change
 * as it is; several by one person counted ("Ann painted 5 tiles", "Ann made 3 changes"); the
 * first few people named, the rest counted with the `more` changes nobody was kept for.
 */
export function summarize(groups, more = 0) {
  const sentences = [];
  let others = 0;
  let otherChanges = more;
  for (const g of groups.values()) {
    if (sentences.length >= NAMED) {
      others += 1;
      otherChanges += g.count;
    } else if (g.count === 1) sentences.push(g.text);
    else if (g.toggles) sentences.push(`${isolate(g.name)} painted ${g.count} tiles`);
    else sentences.push(`${isolate(g.name)} made ${g.count} changes`);
  }
  if (otherChanges) {
    const who = others === 1 && !more ? 'One other person' : 'Others';
    sentences.push(`${who} made ${otherChanges} ${otherChanges === 1 ? 'change' : 'changes'}`);
  }
  return sentences.map((s) => `${s}.`).join(' ');
}

/**
 * Says other people's changes, politely: the first at once, then at most one sentence every
 * `interval` ms for what came in between (`summarize`). `say(text)` speaks; `schedule(fn, ms)`
 * returns a cancel function (setTimeout in the page, a fake clock in tests). What waits is
 * bounded: past `cap` people, further people's changes are only counted.
 */
export class AnnounceThrottle {
  constructor(say, { interval = ANNOUNCE_INTERVAL, now = () => Date.now(), schedule = defaultSchedule, cap = 100 } = {}) {
    this.say = say;
    this.interval = interval;
    this.now = now;
    this.schedule = schedule;
    this.cap = cap;
    this.groups = new Map();
    this.more = 0;
    this.lastAt = -Infinity;
    this.cancelTimer = null;
  }

  /** A change to announce: {by, name, kind, text} (from describeOp); null is ignored. */
  offer(event) {
    if (!event) return;
    if (!fold(this.groups, event, this.cap)) this.more += 1;
    if (this.cancelTimer) return;
    const wait = this.lastAt + this.interval - this.now();
    if (wait <= 0) this.flush();
    else this.cancelTimer = this.schedule(() => { this.cancelTimer = null; this.flush(); }, wait);
  }

  /** Says what waits now (nothing when nothing does). */
  flush() {
    if (this.cancelTimer) this.cancelTimer();
    this.cancelTimer = null;
    if (!this.groups.size && !this.more) return;
    const text = summarize(this.groups, this.more);
    this.groups = new Map();
    this.more = 0;
    this.lastAt = this.now();
    this.say(text);
  }

  /** Forgets what waits. */
  reset() {
    if (this.cancelTimer) this.cancelTimer();
    this.cancelTimer = null;
    this.groups = new Map();
    this.more = 0;
  }
}

function defaultSchedule(fn, ms) {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
}
