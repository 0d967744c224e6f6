// A TypeScript program that uses the SDK's types (web/sdk/shuffleboard.d.ts): `tsc -p Tests/types`
// must accept it (scripts/test.sh runs it). The `@ts-expect-error` lines are mistakes the types
// must catch: should one of them stop being an error, tsc fails too.
import { connect, OpError, TokenKeeper, boardSocketURL, swap, tokenExpiry } from '../../web/sdk/shuffleboard.js';
import type { Board, Client, Comment, CommentsPage, CommittedOp, OpResult, Presence, User } from '../../web/sdk/shuffleboard.js';
import { PendingStore, QueueFullError } from '../../web/sdk/queue.js';

async function fetchToken(): Promise<string> {
  const r = await fetch('/my-backend/shuffleboard-token');
  return r.text();
}

const board: Client = connect({ url: 'http://127.0.0.1:8080', board: 'demo', name: 'Ada', getToken: fetchToken });
let snapshot: Board | null = null;

board.on('welcome', (w) => {
  if (w.board) snapshot = w.board;
  const names: string[] = w.users.map((u: User) => u.name);
  console.log(`joined as ${w.you} at seq ${w.seq} with ${names.join(', ')}`);
});
board.on('op', (op: CommittedOp) => {
  if (op.type === 'swap') console.log(op.a, op.b, op.seq, op.by);
  else if (op.type === 'add') console.log(op.item.id, op.item.label, op.item.on);
  else if (op.type === 'move') console.log(op.item, op.zone, op.before);
});
board.on('dragStart', (d) => console.log(`${d.by} lifted ${d.item}`));
board.on('hover', (h) => console.log(h.over, h.zone, h.mode));
board.on('drop', (d) => console.log(d.reason ?? 'dropped'));
board.on('notice', (n) => console.log(`${n.by.name} ${n.kind === 'mention' ? 'mentioned you on' : 'assigned you'} ${n.label} (${n.board})`, n.id, n.read));
board.on('presence', (p: Presence) => console.log(p.users.length, p.userCount));
board.on('expired', () => console.log('access expired'));
board.on('close', ({ code, reason }) => console.log(code, reason));
const stop: () => void = board.on('state', (s) => console.log(s === 'open' ? 'live' : s));
stop();

async function play(): Promise<void> {
  try {
    const swapped: OpResult<'swap'> = await board.op({ type: 'swap', a: 't1', b: 't2' });
    console.log(swapped.seq, swapped.type === 'swap' ? swapped.a : '');
    const added = await board.op({ type: 'add', zone: 'todo', before: null, item: { label: 'Ship it' } });
    if (!('ack' in added)) console.log(added.item.id);
    // Back painted on, as the undo of a remove brings a card back.
    await board.op({ type: 'add', zone: 'todo', before: 't2', item: { label: 'Lit', color: '#43a047', on: true } });
    // Back with its content, as the undo of a remove brings a card back whole.
    await board.op({
      type: 'add', zone: 'todo', before: null,
      item: {
        label: 'Whole', description: '# Why', due: '2026-12-24', tags: ['g1'], assignees: [{ member: 'ann', name: 'Ann' }],
        checklist: [{ text: 'Write it', done: true }, { text: 'Ship it' }],
      },
    });
    await board.op({ type: 'edit', item: 't1', detail: null, op: 'my-op-1', base: 3 });
    board.dragStart('t3');
    board.hover('t3', 't4', 'grid', 'move');
    const moved = await board.drop('t3', { type: 'move', zone: 'grid', before: 't4' });
    console.log(moved.seq);
    // Cards that hold a team's work (issue 32).
    const tagged = await board.op({ type: 'addTag', tag: { name: 'Bug', color: '#d32f2f' } });
    if (tagged.type === 'addTag' && !('ack' in tagged)) {
      await board.op({ type: 'tag', item: 't1', add: [tagged.tag.id] });
    }
    await board.op({ type: 'assign', item: 't1', add: [{ member: 'ada', name: 'Ada' }], remove: ['bo'] });
    await board.op({ type: 'edit', item: 't1', description: '# Plan\n\n- write', due: '2026-02-28' });
    const check = await board.op({ type: 'addCheck', item: 't1', before: null, text: 'Write it' });
    if (!('ack' in check)) {
      await board.op({ type: 'editCheck', item: 't1', check: check.check.id, done: true });
      console.log(check.member ?? check.by, check.check.done);
    }
    // Many cards at once (issue 36).
    const many = await board.op({ type: 'moveMany', items: ['t1', 't2'], zone: 'tray', before: null });
    if (many.type === 'moveMany') console.log(many.items.length);
    await board.op({ type: 'archive', items: ['t3'] });
    await board.op({ type: 'unarchive', items: ['t3'], zone: 'grid', before: 't4' });
  } catch (e) {
    if (e instanceof OpError && e.kind === 'reject') console.log(e.reason, e.by, e.seq);
  }
}
void play();

console.log(boardSocketURL('https://boards.example', 'demo'), tokenExpiry(board.token), board.seq, snapshot);

// Mistakes the types catch.
// @ts-expect-error: a tag op names tag ids, not tags
void board.op({ type: 'tag', item: 't1', add: [{ name: 'Bug' }] });
// @ts-expect-error: an addCheck needs its `before`
void board.op({ type: 'addCheck', item: 't1', text: 'x' });
// @ts-expect-error: a moveMany needs its `zone` and `before`
void board.op({ type: 'moveMany', items: ['t1'] });
// @ts-expect-error: a swap needs `b`
void board.op({ type: 'swap', a: 't1' });
// @ts-expect-error: no such op
void board.op({ type: 'shuffle' });
// @ts-expect-error: `on` is a boolean
void board.op({ type: 'toggle', item: 't1', on: 'yes' });
// @ts-expect-error: no such event
board.on('ops', () => undefined);
// @ts-expect-error: a board is required
connect({ url: 'http://127.0.0.1:8080', name: 'Ada' });
board.on('reject', (r) => {
  // @ts-expect-error: a reject's reason is one of the protocol's
  const reason: 'nope' = r.reason;
  console.log(reason);
});

// The message builders and the token rules are typed too.
const msg = swap('op-1', 0, 't1', 't2');
void board.submit(msg);
const keeper = new TokenKeeper(null, { canFetch: true });
for (const e of keeper.welcomed(Date.now())) if (e.type === 'wake') console.log(e.after);

// A durable queue: the ops not yet answered outlive the page, and the next client sends them again.
async function durable(): Promise<void> {
  const queue = await PendingStore.open('demo');
  const saved = await queue.loadBoard();
  const kept = connect({ url: 'http://127.0.0.1:8080', board: 'demo', name: 'Ada', queue, since: saved?.seq ?? null });
  const again: string[] = (await kept.restore()).map((m) => m.op);
  kept.on('queueError', (e) => console.log(e.op, e.error instanceof QueueFullError));
  if (saved) await queue.saveBoard(saved.board, saved.seq);
  console.log(again, (await queue.ops()).length);
  // @ts-expect-error: a queue keeps op messages, not bodies without an id
  void queue.put({ type: 'swap', a: 't1', b: 't2' });
}
void durable();
// Comments (issue 34): a comment op, its committed form, and a page of them.
async function comments(client: Client): Promise<void> {
  const made = await client.op({ type: 'comment', item: 't1', text: 'Ready? @Bo', mentions: [{ member: 'bo', name: 'Bo' }] });
  if (made.type === 'comment' && !('ack' in made)) {
    const c: Comment = made.comment;
    console.log(c.at, c.name, c.mentions.length);
    await client.op({ type: 'editComment', item: 't1', comment: c.id, text: 'Ready!' });
    await client.op({ type: 'removeComment', item: 't1', comment: c.id });
  }
  const page: CommentsPage = { comments: [], more: false, next: null };
  console.log(page.more);
}
void comments;
// @ts-expect-error: a comment needs its text
void board.op({ type: 'comment', item: 't1' });
