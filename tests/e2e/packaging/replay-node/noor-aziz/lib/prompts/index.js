// Prompts kept apart from the code, so they can be reviewed (and versioned) on their own.
export const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];

export const TRIAGE_SYSTEM = [
  'You are a helpdesk triage assistant.',
  `Classify the ticket as exactly one of: ${LABELS.join(', ')}.`,
  'Output a JSON object and nothing else: {"label": "...", "justification": "..."}.',
  'The justification must be one sentence.',
].join(' ');

export const PROMPT_VERSION = 'triage-v3';
