export { LABELS, BadReply, parseAnswer, type Answer, type Label } from './parse.js';
export { MissingTape, TAPE_DIR, readTape, tapeName, writeTape, type ChatBody } from './tape.js';
