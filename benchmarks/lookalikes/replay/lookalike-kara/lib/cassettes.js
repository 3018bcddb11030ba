'use strict';
// Everything about cassettes: the key of a request, where its file lives,
// reading one back (replay) and writing one (record).

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const DIR = path.join(__dirname, '..', 'cassettes');

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

const requestKey = (req) =>
  crypto.createHash('sha256').update(JSON.stringify(sortKeys(req))).digest('hex');

const cassettePath = (ticketId, req) => path.join(DIR, `${ticketId}-${requestKey(req).slice(0, 16)}.json`);

class MissingCassetteError extends Error {}

function load(ticketId, req) {
  const file = cassettePath(ticketId, req);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
    throw new MissingCassetteError(
      `no cassette for ${ticketId}: expected cassettes/${path.basename(file)}. Record it with ./run.sh record`
    );
  }
  return JSON.parse(text).response;
}

function save(ticketId, req, response) {
  fs.mkdirSync(DIR, { recursive: true });
  const body = JSON.stringify({ ticket: ticketId, key: requestKey(req), request: req, response }, null, 2);
  const file = cassettePath(ticketId, req);
  fs.writeFileSync(file + '.tmp', body + '\n');
  fs.renameSync(file + '.tmp', file);
}

module.exports = { requestKey, cassettePath, load, save, MissingCassetteError };
