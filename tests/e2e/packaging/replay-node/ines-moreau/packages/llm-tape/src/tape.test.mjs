import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { requestDigest, Tape, TapeMiss } from './tape.mjs';

test('the digest ignores the model and key order', () => {
  const a = { model: 'a', temperature: 0, messages: [{ role: 'user', content: 'x' }] };
  const b = { messages: [{ content: 'x', role: 'user' }], temperature: 0, model: 'b' };
  assert.equal(requestDigest(a), requestDigest(b));
});

test('a recorded call plays back; an unknown one is a miss', () => {
  const tape = new Tape(path.join(mkdtempSync(path.join(tmpdir(), 'tape-')), 'c'));
  tape.record({ messages: [1] }, { ok: true }, 't1');
  assert.deepEqual(tape.play({ messages: [1] }, 't1'), { ok: true });
  assert.throws(() => tape.play({ messages: [2] }, 't2'), TapeMiss);
});
