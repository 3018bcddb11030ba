import { z } from 'zod';

export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'] as const;
export type Label = (typeof LABELS)[number];

const Triage = z.object({
  label: z
    .string()
    .transform((s) => s.trim().toLowerCase().replace(/[\s-]+/g, '_'))
    .pipe(z.enum(LABELS)),
  justification: z
    .string()
    .transform((s) => s.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1)),
});

export type Triage = z.infer<typeof Triage>;

/** Why a reply couldn't be used; record retries these, replay reports them. */
export class UnusableReply extends Error {
  override name = 'UnusableReply';
}

/** Reads the model's answer: a JSON object, or `label: x` / `justification: y` lines. */
export function parseReply(content: unknown): Triage {
  if (typeof content !== 'string' || content.trim() === '') {
    throw new UnusableReply('empty reply');
  }
  let text = content.trim();
  const fenced = /^```[a-z]*\s*([\s\S]*?)\s*```$/i.exec(text);
  if (fenced) text = fenced[1];

  let candidate: unknown;
  try {
    candidate = JSON.parse(text);
  } catch {
    candidate = fromLines(text);
  }
  const result = Triage.safeParse(candidate);
  if (!result.success) {
    throw new UnusableReply(`reply doesn't fit {label, justification}: ${JSON.stringify(content).slice(0, 120)}`);
  }
  return result.data;
}

function fromLines(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*[*_-]*\s*(label|justification)\s*[*_]*\s*[:=]\s*(.+)$/i.exec(line);
    if (m && !(m[1].toLowerCase() in fields)) {
      fields[m[1].toLowerCase()] = m[2].replace(/^["'`]+|["'`]+$/g, '');
    }
  }
  return fields;
}
