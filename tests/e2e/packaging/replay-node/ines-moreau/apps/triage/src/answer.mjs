export class BadAnswer extends Error {
  constructor(message) {
    super(message);
    this.name = 'BadAnswer';
  }
}

/** `choices[0].message.content` as JSON, or as "label: ..." and "justification: ..." lines. */
export function readAnswer(completion, labels) {
  const text = completion?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') throw new BadAnswer('empty answer');
  let obj;
  try {
    obj = JSON.parse(text.trim().replace(/^```(?:json)?\s*/, '').replace(/\s*```$/, ''));
  } catch {
    obj = Object.fromEntries(
      text
        .split('\n')
        .map((l) => l.match(/^\s*[*-]?\s*(label|justification)\s*:\s*(.+?)\s*$/i))
        .filter(Boolean)
        .map((m) => [m[1].toLowerCase(), m[2]]),
    );
  }
  const label = String(obj?.label ?? '').toLowerCase().trim().replace(/[\s-]+/g, '_').replace(/[^a-z_]/g, '');
  const justification = String(obj?.justification ?? '').replace(/\s+/g, ' ').trim();
  if (!labels.includes(label)) throw new BadAnswer(`label ${JSON.stringify(obj?.label)} not in ${labels.join('/')}`);
  if (!justification) throw new BadAnswer('no justification');
  return { label, justification };
}
