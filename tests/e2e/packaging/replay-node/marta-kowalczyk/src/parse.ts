import { LABELS, type Label, type Triage } from './types.js';

export class ParseError extends Error {
  override name = 'ParseError';
}

function asLabel(value: unknown): Label | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase().replace(/^[\s"'`*]+|[\s"'`*.]+$/g, '').replace(/[ -]/g, '_');
  return (LABELS as readonly string[]).includes(v) ? (v as Label) : undefined;
}

/** JSON `{"label", "justification"}` first; plain `label: x` / `justification: y` lines otherwise. */
export function parseTriage(content: string | null | undefined): Triage {
  if (!content || !content.trim()) throw new ParseError('empty completion');
  let fields: Record<string, unknown> = {};
  const braces = content.match(/\{[\s\S]*\}/);
  if (braces) {
    try {
      fields = JSON.parse(braces[0]) as Record<string, unknown>;
    } catch {
      fields = {};
    }
  }
  if (fields.label === undefined) {
    for (const line of content.split(/\r?\n/)) {
      const m = line.match(/^\s*\**\s*(label|justification)\s*\**\s*:\s*(.+)$/i);
      if (m && fields[m[1].toLowerCase()] === undefined) fields[m[1].toLowerCase()] = m[2];
    }
  }
  const label = asLabel(fields.label);
  const justification = typeof fields.justification === 'string' ? fields.justification.replace(/\s+/g, ' ').trim() : '';
  if (!label) throw new ParseError(`no valid label in ${JSON.stringify(content.slice(0, 80))}`);
  if (!justification) throw new ParseError(`no justification in ${JSON.stringify(content.slice(0, 80))}`);
  return { label, justification };
}
