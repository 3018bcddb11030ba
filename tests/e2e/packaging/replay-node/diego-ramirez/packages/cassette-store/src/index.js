export { CassetteStore, MissingCassetteError } from './store.js';
export { LABELS, parseTriage, TriageParseError } from './parse.js';
