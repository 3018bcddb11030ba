export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'] as const;
export type Label = (typeof LABELS)[number];

export interface Ticket {
  id: string;
  body: string;
}

export interface Triage {
  label: Label;
  justification: string;
}

export interface ChatRequest {
  model: string;
  temperature: number;
  messages: { role: 'system' | 'user'; content: string }[];
}

export interface ChatCompletion {
  model?: string;
  usage?: unknown;
  choices?: { message?: { content?: string | null } }[];
}
