export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];

export function normalizeLabel(value) {
  const v = String(value ?? '').trim().toLowerCase().replaceAll('-', '_').replaceAll(' ', '_');
  return LABELS.includes(v) ? v : 'other';
}

// The model is asked for JSON, but some models answer "label: x\njustification: y".
export function readAnswer(content) {
  const text = String(content ?? '').trim();
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = {};
    for (const line of text.split('\n')) {
      const idx = line.indexOf(':');
      if (idx < 0) continue;
      const key = line.slice(0, idx).trim().toLowerCase();
      if ((key === 'label' || key === 'justification') && !(key in parsed)) {
        parsed[key] = line.slice(idx + 1).trim();
      }
    }
  }
  return {
    label: normalizeLabel(parsed?.label),
    justification: String(parsed?.justification ?? '').split(/\s+/).filter(Boolean).join(' '),
  };
}
