export const LABELS = Object.freeze(['billing', 'bug', 'account', 'feature_request', 'other']);

export class TriageParseError extends Error {
  name = 'TriageParseError';
}

const normaliseLabel = (raw) => String(raw ?? '').trim().toLowerCase().replace(/[^a-z_ -]/g, '').replace(/[ -]+/g, '_');

function fields(text) {
  const trimmed = text.trim().replace(/^```(json)?/i, '').replace(/```$/, '').trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // fall through
    }
  }
  const found = {};
  for (const line of trimmed.split(/\r?\n/)) {
    const m = line.match(/^[\s*-]*(label|justification)\**\s*:\s*(.+)$/i);
    if (m && !(m[1].toLowerCase() in found)) found[m[1].toLowerCase()] = m[2].trim();
  }
  return found;
}

/** The assistant message of a chat completion -> {label, justification}. */
export function parseTriage(completion) {
  const content = completion?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || !content.trim()) throw new TriageParseError('the completion has no content');
  const { label, justification } = fields(content);
  const clean = normaliseLabel(label);
  if (!LABELS.includes(clean)) throw new TriageParseError(`unexpected label ${JSON.stringify(label)}`);
  const line = String(justification ?? '').replace(/\s+/g, ' ').trim();
  if (!line) throw new TriageParseError('missing justification');
  return { label: clean, justification: line };
}
