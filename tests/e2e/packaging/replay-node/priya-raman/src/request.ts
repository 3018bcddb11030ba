import { LABELS } from './reply.js';

export interface Ticket {
  id: string;
  body: string;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** Everything we send except the model id, so a cassette still matches when $MODEL changes. */
export interface TriageRequest {
  messages: ChatMessage[];
  temperature: number;
}

const INSTRUCTIONS = [
  'You triage customer support tickets.',
  `Pick exactly one label from: ${LABELS.join(', ')}.`,
  'Answer with a JSON object and nothing else:',
  '{"label": "<one of the labels>", "justification": "<one short sentence>"}',
].join('\n');

export function triageRequest(ticket: Ticket): TriageRequest {
  return {
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: `Ticket ${ticket.id}:\n${ticket.body}` },
    ],
    temperature: 0,
  };
}
