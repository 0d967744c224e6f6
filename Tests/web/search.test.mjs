// Unit tests of web/search.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryWords, resultHref } from '../../web/search.js';

test('a query is its words as the server reads them: letters and digits, lowercased', () => {
  assert.deepEqual(queryWords('Log-in "page" OR *'), ['log', 'in', 'page', 'or']);
  assert.deepEqual(queryWords('Café ÉTÉ 2026'), ['café', 'été', '2026']);
  assert.deepEqual(queryWords('  " * : ( ) \' ! '), []);
  assert.equal(queryWords('a b c d e f g h i j').length, 8);
});

test('a result links to its board with its card, every part encoded, the token in the fragment', () => {
  assert.equal(resultHref({ board: 'b1', item: 'c2' }, null), '?board=b1&card=c2');
  assert.equal(resultHref({ board: 'b1', item: null }, 'tok'), '?board=b1#token=tok');
  assert.equal(resultHref({ board: 'a&b', item: 'x y' }, null), '?board=a%26b&card=x%20y');
});
