import { LABELS } from './schema.ts';

export type Ticket = { id: string; body: string };
export type ChatRequest = {
  model: string;
  temperature: number;
  messages: { role: 'system' | 'user'; content: string }[];
};

const SYSTEM = `Triage the customer support ticket you are given.
Labels: ${LABELS.join(', ')}. Pick exactly one.
Respond with JSON only: {"label": "<label>", "justification": "<one sentence>"}`;

export function requestFor(ticket: Ticket, model: string): ChatRequest {
  return {
    model,
    temperature: 0,
    messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: ticket.body }],
  };
}
