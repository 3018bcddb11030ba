// Payment client: one idempotency key per order, kept on disk, retried with backoff.
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs'
import { randomUUID } from 'node:crypto'

const config = {
  url: process.env.GATEWAY_URL || 'http://localhost:8099',
  storePath: process.env.CHARGE_STORE || './charge-keys.json',
  attempts: 4,
  baseMs: 150,
  capMs: 3000,
  timeoutMs: Number(process.env.CHARGE_TIMEOUT_MS) || 4000,
}

const wait = ms => new Promise(res => setTimeout(res, ms))

// full jitter: random(0, min(cap, base * 2^n))
const jitter = n => Math.round(Math.random() * Math.min(config.capMs, config.baseMs * 2 ** n))

const shouldRetry = status => status >= 500 || [408, 409, 429].includes(status)

/* --- persisted keys: { "<amount>": "<uuid>" } --- */

const readStore = () =>
  existsSync(config.storePath) ? JSON.parse(readFileSync(config.storePath, 'utf8')) : {}

const writeStore = store => {
  writeFileSync(config.storePath + '.next', JSON.stringify(store))
  renameSync(config.storePath + '.next', config.storePath)
}

const claimKey = amount => {
  const store = readStore()
  store[amount] ??= randomUUID()
  writeStore(store) // must hit the disk before the first request goes out
  return store[amount]
}

const releaseKey = amount => {
  const { [amount]: _dropped, ...rest } = readStore()
  writeStore(rest)
}

/* --- transport --- */

const tryOnce = async (amount, key) => {
  const ctrl = new AbortController()
  const t = setTimeout(() => ctrl.abort(), config.timeoutMs)
  try {
    const res = await fetch(config.url + '/charge', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount, idempotencyKey: key }),
      signal: ctrl.signal,
    })
    const json = await res.json().catch(() => ({}))
    return { status: res.status, ok: res.ok, json }
  } catch (error) {
    // aborted or connection trouble; treat like a 5xx
    return { status: 0, ok: false, error }
  } finally {
    clearTimeout(t)
  }
}

export const chargeWithRetry = async amount => {
  if (!Number.isFinite(amount) || amount < 0) throw new RangeError('amount must be a number >= 0')

  const key = claimKey(amount)
  const failures = []

  for (let n = 0; n < config.attempts; n++) {
    if (n) await wait(jitter(n - 1))

    const r = await tryOnce(amount, key)
    if (r.ok) {
      releaseKey(amount)
      return r.json
    }
    failures.push(r.error ? r.error.name : `HTTP ${r.status}`)

    if (r.status && !shouldRetry(r.status)) {
      releaseKey(amount)
      throw new Error(`gateway refused charge (${r.status}): ${r.json?.error ?? 'no reason given'}`)
    }
  }

  // key stays in the store on purpose: the next run for this order reuses it
  throw new Error(`giving up on charge of ${amount} after ${config.attempts} tries [${failures.join(', ')}]`)
}
