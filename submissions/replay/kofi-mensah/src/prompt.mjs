export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];

const SYSTEM = `You sort customer support tickets into one of these labels: ${LABELS.join(', ')}.
Reply with JSON only, in this shape: {"label": "<label>", "justification": "<one sentence>"}`;

export function buildRequest(ticket) {
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `[${ticket.id}] ${ticket.body}` },
    ],
    temperature: 0,
  };
}

function normaliseLabel(raw) {
  const label = String(raw ?? '')
    .trim()
    .toLowerCase()
    .replace(/^["'`]+|["'`.]+$/g, '')
    .replace(/[\s-]+/g, '_');
  return LABELS.includes(label) ? label : 'other';
}

// JSON when the model behaves, `label: x` / `justification: y` lines when it doesn't.
export function parseReply(content) {
  let text = String(content ?? '').trim();
  const fence = text.match(/^```(?:json)?\s*([\s\S]*?)\s*```$/i);
  if (fence) text = fence[1];

  let label;
  let justification;
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') ({ label, justification } = parsed);
  } catch {
    for (const line of text.split(/\r?\n/)) {
      const m = /^\s*(label|justification)\s*:\s*(.*)$/i.exec(line);
      if (!m) continue;
      if (m[1].toLowerCase() === 'label') label ??= m[2];
      else justification ??= m[2];
    }
  }
  return {
    label: normaliseLabel(label),
    justification: String(justification ?? '').replace(/\s+/g, ' ').trim(),
  };
}
