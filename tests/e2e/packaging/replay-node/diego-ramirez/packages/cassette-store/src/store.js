import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class MissingCassetteError extends Error {
  constructor(file, label) {
    super(`missing cassette ${file} for ${label}; replay does not call the model, run ./run.sh record to record it`);
    this.name = 'MissingCassetteError';
    this.file = file;
  }
}

/** Sorted-key JSON, so the hash does not depend on how the request object was built. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export class CassetteStore {
  /** @param {string} dir folder holding one JSON file per recorded call */
  constructor(dir) {
    this.dir = dir;
  }

  /** The key ignores `model`, so a cassette recorded under one model id replays under another. */
  keyFor(request) {
    const { model: _model, ...rest } = request;
    return createHash('sha256').update(canonical(rest)).digest('hex').slice(0, 20);
  }

  fileFor(request) {
    return path.join(this.dir, `${this.keyFor(request)}.json`);
  }

  async load(request, label) {
    const file = this.fileFor(request);
    let text;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if (err.code === 'ENOENT') throw new MissingCassetteError(file, label);
      throw err;
    }
    return JSON.parse(text).response;
  }

  async save(request, response, label) {
    await mkdir(this.dir, { recursive: true });
    const file = this.fileFor(request);
    const cassette = { label, key: this.keyFor(request), request, response };
    await writeFile(file, JSON.stringify(cassette, null, 2) + '\n');
    return file;
  }
}
