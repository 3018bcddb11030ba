// Run ledger: every run and every model call goes into out/ledger.db (SQLite), so latency, token
// usage and model ids can be queried later (`sqlite3 out/ledger.db 'select * from calls'`).
// None of it goes into out/answers.json.
import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';

export function openLedger(mode) {
  mkdirSync('out', { recursive: true });
  const db = new Database('out/ledger.db');
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, mode TEXT, started_at TEXT, finished_at TEXT, tickets INTEGER, calls INTEGER, ok INTEGER);
    CREATE TABLE IF NOT EXISTS calls (run_id INTEGER, at TEXT, entry TEXT);
  `);
  const runId = db.prepare('INSERT INTO runs (mode, started_at) VALUES (?, ?)').run(mode, new Date().toISOString()).lastInsertRowid;
  const addCall = db.prepare('INSERT INTO calls (run_id, at, entry) VALUES (?, ?, ?)');
  const finish = db.prepare('UPDATE runs SET finished_at = ?, tickets = ?, calls = ?, ok = ? WHERE id = ?');
  return {
    log(entry) {
      addCall.run(runId, new Date().toISOString(), JSON.stringify(entry));
    },
    finish({ tickets = 0, calls = 0, ok }) {
      finish.run(new Date().toISOString(), tickets, calls, ok ? 1 : 0, runId);
      db.close();
    },
  };
}
