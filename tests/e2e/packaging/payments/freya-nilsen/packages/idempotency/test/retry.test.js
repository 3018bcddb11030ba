import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exponential, fullJitter, retryWithKey, RetryableError } from '@freya/idempotency';

describe('retryWithKey', () => {
  it('passes one key to every attempt', async () => {
    const keys = [];
    const result = await retryWithKey(
      async (key, n) => {
        keys.push(key);
        if (n < 2) throw new RetryableError('not yet');
        return 'done';
      },
      { delay: () => 0 },
    );
    assert.equal(result, 'done');
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 1);
  });

  it('stops after `retries` retries', async () => {
    let calls = 0;
    await assert.rejects(
      retryWithKey(async () => {
        calls++;
        throw new RetryableError('down');
      }, { retries: 3, delay: () => 0 }),
      /down/,
    );
    assert.equal(calls, 4);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await assert.rejects(retryWithKey(async () => {
      calls++;
      throw new Error('refused');
    }), /refused/);
    assert.equal(calls, 1);
  });

  it('backs off exponentially', () => {
    const d = exponential({ baseMs: 100 });
    assert.deepEqual([0, 1, 2].map(d), [100, 200, 400]);
    const j = fullJitter({ baseMs: 100, random: () => 1 });
    assert.deepEqual([0, 1, 2].map(j), [100, 200, 400]);
  });
});
