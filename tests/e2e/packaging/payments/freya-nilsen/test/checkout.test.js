import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';

// A fake gateway: `plan` holds the status of each successive request (the last one repeats).
let plan = [200];
let requests = [];
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const body = JSON.parse(raw);
    requests.push({ key: body.idempotencyKey ?? req.headers['idempotency-key'], amount: body.amount, at: performance.now() });
    const status = plan[Math.min(requests.length - 1, plan.length - 1)];
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: `ch_${requests.length}` } : { ok: false, error: 'nope' }));
  });
});

let chargeWithRetry;
before(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import('../checkout.mjs'));
});
after(() => server.close());
beforeEach(() => {
  requests = [];
});

describe('chargeWithRetry', () => {
  it('a 503 then a 200 is one payment under one key', async () => {
    plan = [503, 200];
    const result = await chargeWithRetry(4200);
    assert.equal(result.ok, true);
    assert.equal(requests.length, 2);
    assert.equal(requests[0].key, requests[1].key, 'the retry used a different idempotency key');
    assert.ok(requests[0].key, 'no idempotency key sent');
  });

  it('two separate charges get two different keys', async () => {
    plan = [200];
    await chargeWithRetry(100);
    await chargeWithRetry(100);
    assert.notEqual(requests[0].key, requests[1].key);
  });

  it('rejects after 1 try + 3 retries, waiting longer each time', async () => {
    plan = [503];
    await assert.rejects(chargeWithRetry(300), /503/);
    assert.equal(requests.length, 4);
    const gaps = requests.slice(1).map((r, i) => r.at - requests[i].at);
    assert.ok(gaps[0] < gaps[1] && gaps[1] < gaps[2], `gaps were ${gaps.map(Math.round).join(', ')} ms`);
  });

  it('a 400 is not retried', async () => {
    plan = [400];
    await assert.rejects(chargeWithRetry(-1), /refused/);
    assert.equal(requests.length, 1);
  });
});
