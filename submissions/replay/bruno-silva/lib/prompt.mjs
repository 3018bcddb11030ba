export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];

const SYSTEM = [
  'You are a support triage assistant.',
  `Classify the ticket into exactly one of these labels: ${LABELS.join(', ')}.`,
  'Answer with a single JSON object and nothing else:',
  '{"label": "<label>", "justification": "<one sentence explaining why>"}',
].join('\n');

// Everything that shapes the answer goes in here, and nothing that changes
// between runs (no model id, no timestamps) -- the cassette key is a hash of it.
export function buildRequest(ticket) {
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Support ticket (${ticket.id}):\n"""\n${ticket.body}\n"""` },
    ],
    temperature: 0,
  };
}

function cleanLabel(raw) {
  const label = String(raw ?? '')
    .trim()
    .toLowerCase()
    .replace(/^["'`]+|["'`.]+$/g, '')
    .replace(/[\s-]+/g, '_');
  return LABELS.includes(label) ? label : 'other';
}

// Models mostly follow the JSON instruction. Mostly. The fallback reads
// "label: x" / "justification: y" lines.
export function parseAnswer(content) {
  let text = String(content ?? '').trim();
  const fenced = text.match(/^```(?:json)?\s*([\s\S]*?)\s*```$/i);
  if (fenced) text = fenced[1];

  let label;
  let justification;
  try {
    const obj = JSON.parse(text);
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
      ({ label, justification } = obj);
    }
  } catch {
    for (const line of text.split(/\r?\n/)) {
      const m = line.match(/^\s*[*-]?\s*(label|justification)\s*:\s*(.*)$/i);
      if (!m) continue;
      const key = m[1].toLowerCase();
      if (key === 'label' && label === undefined) label = m[2];
      if (key === 'justification' && justification === undefined) justification = m[2];
    }
  }
  return {
    label: cleanLabel(label),
    justification: String(justification ?? '').replace(/\s+/g, ' ').trim(),
  };
}
