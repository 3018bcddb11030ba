// Turning a chat completion into {label, justification}.
export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];

export class UnusableAnswer extends Error {
  name = 'UnusableAnswer';
}

function pick(content) {
  try {
    const parsed = JSON.parse(content.replace(/^\s*```(?:json)?|```\s*$/g, ''));
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // not JSON: fall through to "label: x" lines
  }
  const fields = {};
  for (const line of content.split('\n')) {
    const match = /^\W*(label|justification)\W*[:=]\s*(.*?)\s*$/i.exec(line);
    if (match) fields[match[1].toLowerCase()] ??= match[2];
  }
  return fields;
}

export function answerFrom(completion) {
  const content = completion?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw new UnusableAnswer('empty message content');
  const { label, justification } = pick(content);
  const normalised = String(label ?? '').trim().toLowerCase().replace(/["'`.]/g, '').replace(/[\s-]+/g, '_');
  if (!LABELS.includes(normalised)) throw new UnusableAnswer(`label ${JSON.stringify(label)} is not one of ${LABELS.join(', ')}`);
  const oneLine = String(justification ?? '').replace(/\s+/g, ' ').trim();
  if (!oneLine) throw new UnusableAnswer('no justification');
  return { label: normalised, justification: oneLine };
}
