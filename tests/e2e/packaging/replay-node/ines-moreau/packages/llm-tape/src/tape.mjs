// A tape of chat-completion calls: one JSON file per request, named by a hash of the request.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';

export class TapeMiss extends Error {
  constructor(message) {
    super(message);
    this.name = 'TapeMiss';
  }
}

export function requestDigest(request) {
  const { model, ...rest } = request; // the model id is configuration, not part of the question
  return createHash('sha1').update(canonicalize(rest)).digest('hex');
}

export class Tape {
  constructor(folder) {
    this.folder = folder;
  }

  pathOf(request) {
    return path.join(this.folder, `${requestDigest(request)}.json`);
  }

  play(request, what) {
    const file = this.pathOf(request);
    if (!fs.existsSync(file)) {
      throw new TapeMiss(`${what}: no recorded call at ${file}. Replay is offline only; record it with ./run.sh record`);
    }
    const entry = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (entry.digest !== requestDigest(request)) throw new TapeMiss(`${file} is for another request; record again`);
    return entry.response;
  }

  record(request, response, what) {
    fs.mkdirSync(this.folder, { recursive: true });
    const file = this.pathOf(request);
    const entry = { what, digest: requestDigest(request), request, response };
    fs.writeFileSync(file, JSON.stringify(entry, null, 2) + '\n');
    return file;
  }
}
