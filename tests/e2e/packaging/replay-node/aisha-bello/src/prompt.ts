export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'] as const;
export type Label = (typeof LABELS)[number];

export interface Ticket {
  id: string;
  body: string;
}

export interface Prompt {
  temperature: 0;
  response_format: { type: 'json_object' };
  messages: { role: 'system' | 'user'; content: string }[];
}

export interface Verdict {
  label: Label;
  justification: string;
}

const SYSTEM = `Classify the support ticket you are given.
Allowed labels: ${LABELS.join(' | ')}.
Return a JSON object with two keys: "label" (one allowed label) and "justification" (one line saying why).`;

/** The request minus `model`: that is what a cassette is keyed on. */
export function promptFor(ticket: Ticket): Prompt {
  return {
    temperature: 0,
    response_format: { type: 'json_object' },
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: ticket.body },
    ],
  };
}

function asLabel(value: unknown): Label | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase().replace(/[."'`]/g, '').replace(/[\s-]+/g, '_');
  return (LABELS as readonly string[]).includes(v) ? (v as Label) : undefined;
}

function oneLine(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}

/** JSON content as asked, or the plain `label: X` / `justification: Y` form some models use. */
export function readVerdict(content: unknown): Verdict | undefined {
  if (typeof content !== 'string') return undefined;
  let fields: Record<string, unknown> = {};
  const json = content.match(/\{[\s\S]*\}/);
  if (json) {
    try {
      fields = JSON.parse(json[0]) as Record<string, unknown>;
    } catch {
      fields = {};
    }
  }
  if (fields.label === undefined) {
    const label = content.match(/^\s*label\s*:\s*(.+)$/im);
    const why = content.match(/^\s*justification\s*:\s*(.+)$/im);
    fields = { label: label?.[1], justification: why?.[1] };
  }
  const label = asLabel(fields.label);
  const justification = oneLine(fields.justification);
  return label && justification ? { label, justification } : undefined;
}
