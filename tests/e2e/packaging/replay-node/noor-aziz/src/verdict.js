import { LABELS } from '@noor/prompts';

export class Unparseable extends Error {
  name = 'Unparseable';
}

export function verdictOf(response) {
  const text = response?.choices?.[0]?.message?.content?.trim();
  if (!text) throw new Unparseable('no message content');
  let data = null;
  const start = text.indexOf('{');
  if (start !== -1) {
    try {
      data = JSON.parse(text.slice(start, text.lastIndexOf('}') + 1));
    } catch {
      data = null;
    }
  }
  if (!data) {
    data = {};
    for (const line of text.split('\n')) {
      const [, k, v] = line.match(/^\s*(label|justification)\s*:\s*(.+)$/i) ?? [];
      if (k && !data[k.toLowerCase()]) data[k.toLowerCase()] = v;
    }
  }
  const label = String(data.label ?? '').trim().toLowerCase().replace(/\s+|-/g, '_').replace(/[^a-z_]/g, '');
  const justification = String(data.justification ?? '').split(/\r?\n/).join(' ').replace(/\s+/g, ' ').trim();
  if (!LABELS.includes(label)) throw new Unparseable(`bad label in ${JSON.stringify(text.slice(0, 80))}`);
  if (!justification) throw new Unparseable(`no justification in ${JSON.stringify(text.slice(0, 80))}`);
  return { label, justification };
}
