export const LABELS = Object.freeze(['billing', 'bug', 'account', 'feature_request', 'other'] as const);
export type Label = (typeof LABELS)[number];
export interface Answer {
  label: Label;
  justification: string;
}

export class BadReply extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadReply';
  }
}

const clean = (s: unknown): string => String(s).replace(/\s+/g, ' ').trim();

function toLabel(raw: unknown): Label | null {
  const label = clean(raw).toLowerCase().replace(/^["'`*]+|["'`*.]+$/g, '').replace(/[ -]/g, '_');
  return (LABELS as readonly string[]).includes(label) ? (label as Label) : null;
}

function fromJson(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return null;
  try {
    const obj = JSON.parse(text.slice(start, end + 1));
    return obj && typeof obj === 'object' ? obj : null;
  } catch {
    return null;
  }
}

function fromText(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of text.split('\n')) {
    const m = line.match(/^\W*(label|justification)\W*:\s*(.*)$/i);
    if (m && out[m[1]!.toLowerCase()] === undefined) out[m[1]!.toLowerCase()] = m[2];
  }
  return out;
}

/** choices[0].message.content -> { label, justification }; JSON or "label: x / justification: y" lines. */
export function parseAnswer(content: unknown): Answer {
  if (typeof content !== 'string' || !content.trim()) throw new BadReply('model returned no content');
  const fields = fromJson(content) ?? fromText(content);
  const label = fields.label == null ? null : toLabel(fields.label);
  const justification = fields.justification == null ? '' : clean(fields.justification);
  if (!label) throw new BadReply(`no usable label in reply: ${JSON.stringify(content.slice(0, 100))}`);
  if (!justification) throw new BadReply(`no justification in reply: ${JSON.stringify(content.slice(0, 100))}`);
  return { label, justification };
}
