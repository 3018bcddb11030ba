import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTriage } from './parse.js';

const completion = (content) => ({ choices: [{ message: { content } }] });

test('reads the JSON answer', () => {
  assert.deepEqual(parseTriage(completion('{"label": "bug", "justification": "Crashes on save."}')), {
    label: 'bug',
    justification: 'Crashes on save.',
  });
});

test('reads label/justification lines', () => {
  assert.deepEqual(parseTriage(completion('label: Feature Request\njustification: Wants dark mode.')), {
    label: 'feature_request',
    justification: 'Wants dark mode.',
  });
});

test('rejects a label outside the list', () => {
  assert.throws(() => parseTriage(completion('{"label": "urgent", "justification": "x"}')), /unexpected label/);
});
