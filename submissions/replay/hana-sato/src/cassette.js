import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const DIR = 'cassettes';

function fileFor(ticketId, request) {
  const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 12);
  return path.join(DIR, `${ticketId}--${hash}.json`);
}

export function readCassette(ticketId, request) {
  const file = fileFor(ticketId, request);
  let raw;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') {
      const e = new Error(`cassette missing: ${file} (ticket ${ticketId}). Run ./run.sh record to create it.`);
      e.expected = true;
      throw e;
    }
    throw err;
  }
  return JSON.parse(raw).response.body;
}

export function writeCassette(ticketId, request, status, body) {
  fs.mkdirSync(DIR, { recursive: true });
  const doc = { ticket: ticketId, request, response: { status, body } };
  fs.writeFileSync(fileFor(ticketId, request), JSON.stringify(doc, null, 2) + '\n');
}
