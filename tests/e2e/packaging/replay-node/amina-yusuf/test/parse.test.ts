import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnswer } from '../src/parse.js';

test('json answer', () => {
  assert.deepEqual(parseAnswer('{"label": "bug", "justification": "It crashes."}'), { label: 'bug', justification: 'It crashes.' });
});

test('plain text answer', () => {
  assert.deepEqual(parseAnswer('label: billing\njustification: Double charge.'), { label: 'billing', justification: 'Double charge.' });
});
