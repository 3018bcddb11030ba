import * as v from "valibot";

export const LABELS = ["billing", "bug", "account", "feature_request", "other"] as const;
export type Label = (typeof LABELS)[number];

const normalise = (s: string) => s.trim().toLowerCase().replace(/[\s-]+/g, "_");

export const Verdict = v.object({
  label: v.pipe(v.string(), v.transform(normalise), v.picklist(LABELS)),
  justification: v.pipe(
    v.string(),
    v.transform((s) => s.replace(/\s+/g, " ").trim()),
    v.minLength(1, "empty justification"),
  ),
});
export type Verdict = v.InferOutput<typeof Verdict>;

export class BadAnswer extends Error {
  override name = "BadAnswer";
}

// The model is asked for JSON; some answer "label: x\njustification: y" instead.
function looseFields(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^[\s*_>-]*(label|justification)[\s*_]*:\s*(.+)$/i);
    if (m?.[1] && m[2] && !(m[1].toLowerCase() in found)) {
      found[m[1].toLowerCase()] = m[2].replace(/^["'`]|["'`]$/g, "");
    }
  }
  return found;
}

export function readVerdict(content: unknown): Verdict {
  if (typeof content !== "string" || !content.trim()) throw new BadAnswer("the model sent no text");
  const text = content.trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = looseFields(text);
  }
  const parsed = v.safeParse(Verdict, data);
  if (!parsed.success) {
    throw new BadAnswer(`unusable answer (${parsed.issues[0].message}): ${JSON.stringify(content).slice(0, 100)}`);
  }
  return parsed.output;
}
