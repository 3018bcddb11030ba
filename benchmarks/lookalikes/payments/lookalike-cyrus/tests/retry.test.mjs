import test from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const plan = []
const hits = []
let outageKey

const srv = createServer((req, res) => {
  let buf = ''
  req.on('data', c => (buf += c))
  req.on('end', () => {
    const { amount, idempotencyKey } = JSON.parse(buf)
    hits.push(idempotencyKey)
    const code = plan.shift() ?? 200
    res.writeHead(code, { 'content-type': 'application/json' })
    res.end(JSON.stringify(code === 200 ? { ok: true, chargeId: 'ch_' + hits.length, amount } : { ok: false, error: 'nope' }))
  })
})

await new Promise(r => srv.listen(0, '127.0.0.1', r))
process.env.GATEWAY_URL = `http://127.0.0.1:${srv.address().port}`
process.env.CHARGE_STORE = path.join(mkdtempSync(path.join(tmpdir(), 'cyrus-')), 'keys.json')
const { chargeWithRetry } = await import('../checkout.mjs')

test.after(() => srv.close())
test.beforeEach(() => { plan.length = 0; hits.length = 0 })

test('transient 503: one key, one success', async () => {
  plan.push(503)
  const res = await chargeWithRetry(42)
  assert.equal(res.amount, 42)
  assert.deepEqual([hits.length, new Set(hits).size], [2, 1])
})

test('outage: four tries then throw', async () => {
  plan.push(503, 503, 503, 503)
  await assert.rejects(() => chargeWithRetry(43), /after 4 tries/)
  assert.equal(hits.length, 4)
  outageKey = hits[0]
})

test('after a failed run the next call reuses the key', async () => {
  // same amount as the outage test above, whose key was left in the store
  await chargeWithRetry(43)
  assert.equal(hits.length, 1)
  assert.equal(hits[0], outageKey)
})
