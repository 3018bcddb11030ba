import { LABELS } from '@triage/cassette-store';

const SYSTEM = `You label customer support tickets for routing.
Allowed labels: ${LABELS.join(', ')}.
Return JSON only: {"label": "<label>", "justification": "<one sentence why>"}.`;

export function chatRequest(ticket, model) {
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Ticket ${ticket.id}:\n${ticket.body}` },
    ],
  };
}
