// transfer.js's pure parts (issue 37): the import report's lines and the id a Trello export suggests.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { reportLines, suggestedId } from '../../web/transfer.js';

test('the report lists every imported count and only the dropped ones there were', () => {
  const lines = reportLines({
    imported: { zones: 3, items: 6, tags: 0, checks: 4, comments: 3, archived: 2 },
    dropped: { attachments: 3, customFields: 0, stickers: 1, votes: 0, plugins: 0, someNewField: 2, bad: 'x' },
  });
  assert.deepEqual(lines.imported, [
    ['lists', 3], ['cards', 6], ['labels', 0], ['checklist items', 4], ['comments', 3], ['archived cards', 2]]);
  assert.deepEqual(lines.dropped, [['attachments', 3], ['stickers', 1], ['someNewField', 2]]);
  assert.deepEqual(reportLines(null), { imported: [], dropped: [] });
});

test('an export suggests an id from its board name, and nothing when it is not JSON', () => {
  assert.equal(suggestedId(JSON.stringify({ name: 'Team Retro' })), 'team-retro');
  assert.equal(suggestedId('{"name": 5}'), '');
  assert.equal(suggestedId('not json'), '');
});
