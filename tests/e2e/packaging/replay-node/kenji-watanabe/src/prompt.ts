import { LABELS } from "./labels.ts";

export type Ticket = { id: string; body: string };

export type ChatMessage = { role: "system" | "user"; content: string };

const SYSTEM = `You are a support triage assistant. Read the ticket and choose one label from: ${LABELS.join(", ")}.
Reply with JSON only, like {"label": "bug", "justification": "one short sentence"}.`;

// What we send minus the model id: this is also what the cassette name is hashed from.
export function promptFor(ticket: Ticket): { messages: ChatMessage[]; temperature: number } {
  return {
    temperature: 0,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: `Ticket ${ticket.id}\n\n${ticket.body}` },
    ],
  };
}
