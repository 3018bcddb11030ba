import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadReply, parseAnswer } from '../src/parse.mjs';

test('reads the JSON answer', () => {
  assert.deepEqual(parseAnswer('{"label": "billing", "justification": "Double charge."}'), {
    label: 'billing',
    justification: 'Double charge.',
  });
});

test('reads a JSON answer wrapped in a code fence', () => {
  const reply = '```json\n{"label": "Feature Request", "justification": "Wants dark mode."}\n```';
  assert.equal(parseAnswer(reply).label, 'feature_request');
});

test('accepts label/justification lines', () => {
  assert.deepEqual(parseAnswer('label: bug\njustification: Export button is broken\n  in Firefox.'), {
    label: 'bug',
    justification: 'Export button is broken',
  });
});

test('rejects a label outside the list', () => {
  assert.throws(() => parseAnswer('{"label": "urgent", "justification": "x"}'), BadReply);
});

test('rejects an empty reply', () => {
  assert.throws(() => parseAnswer(''), BadReply);
});
