import { z } from 'zod';

export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'] as const;

export const Triage = z.object({
  label: z.string().transform((s) => s.trim().toLowerCase().replace(/[\s-]+/g, '_')).pipe(z.enum(LABELS)),
  justification: z.string().transform((s) => s.replace(/\s+/g, ' ').trim()).pipe(z.string().min(1)),
});
export type Triage = z.infer<typeof Triage>;

export class UnreadableReply extends Error {
  override name = 'UnreadableReply';
}

/** JSON as asked; otherwise `label: ...` / `justification: ...` lines. */
export function readReply(content: unknown): Triage {
  if (typeof content !== 'string' || content.trim() === '') throw new UnreadableReply('empty reply');
  const text = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let candidate: unknown;
  try {
    candidate = JSON.parse(text);
  } catch {
    const lines = Object.fromEntries(
      [...text.matchAll(/^\W*(label|justification)\W*:\s*(.+)$/gim)].map((m) => [m[1].toLowerCase(), m[2]]),
    );
    candidate = lines;
  }
  const result = Triage.safeParse(candidate);
  if (!result.success) throw new UnreadableReply(`cannot use reply ${JSON.stringify(content.slice(0, 90))}`);
  return result.data;
}
