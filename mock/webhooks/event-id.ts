import { randomInt } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const length = 24;

/** A fresh event id, `evt_` and 24 letters and digits, as the contract's `EventId` requires. */
export function newEventId(): string {
  let id = 'evt_';
  // randomInt draws without modulo bias, so every character is uniform.
  for (let i = 0; i < length; i += 1) id += alphabet[randomInt(alphabet.length)];
  return id;
}
