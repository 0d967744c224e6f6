// The inbox's pure part (web/inbox.js): what the page keeps of the member's notices.
import test from 'node:test';
import assert from 'node:assert/strict';
import { InboxList, MAX_NOTICES, isNotice, noticeLink, noticeText } from '../../web/inbox.js';

const notice = (id, extra = {}) => ({
  id, kind: 'mention', board: 'demo', item: 't1', label: 'Fix the login', by: { member: 'ann', name: 'Ann' },
  at: 1_764_000_000_000, seq: id, read: false, ...extra,
});

test('a page replaces what was known, newest first, with the server unread count', () => {
  const list = new InboxList();
  assert.equal(list.load({ notices: [notice(1), notice(3, { read: true }), notice(2)], unread: 7 }), true);
  assert.deepEqual(list.notices.map((n) => n.id), [3, 2, 1]);
  assert.equal(list.unread, 7);
  assert.equal(list.load({ nope: 1 }), false);
  assert.equal(list.newest, 3);
});

test('a live notice is added once and counts as unread', () => {
  const list = new InboxList();
  list.load({ notices: [notice(1)], unread: 1 });
  assert.equal(list.add(notice(2)), true);
  assert.equal(list.add(notice(2)), false);
  assert.equal(list.unread, 2);
  assert.deepEqual(list.notices.map((n) => n.id), [2, 1]);
});

test('marking read goes up to an id', () => {
  const list = new InboxList();
  list.load({ notices: [notice(1), notice(2), notice(3)], unread: 3 });
  list.markRead(2);
  assert.deepEqual(list.notices.map((n) => n.read), [false, true, true]);
  assert.equal(list.unread, 1);
});

test('what is not a notice is dropped, and the list is bounded', () => {
  assert.equal(isNotice(notice(1)), true);
  for (const bad of [null, notice(0), notice(1, { kind: 'x' }), notice(1, { board: 'a b' }), notice(1, { label: 3 }),
    notice(1, { by: {} }), notice(1.5)]) assert.equal(isNotice(bad), false, JSON.stringify(bad));
  const list = new InboxList();
  for (let i = 1; i <= MAX_NOTICES + 10; i += 1) list.add(notice(i));
  assert.equal(list.notices.length, MAX_NOTICES);
  assert.equal(list.notices.at(-1).id, 11);
});

test('a notice reads as who did what on which card, and links to the card', () => {
  assert.equal(noticeText(notice(1)), 'Ann mentioned you on “Fix the login”');
  assert.equal(noticeText(notice(1, { kind: 'assign', label: ' ' })), 'Ann assigned you to “t1”');
  assert.equal(noticeLink(notice(1, { board: 'b-1', item: 'c9' })), '/?board=b-1&card=c9');
});
