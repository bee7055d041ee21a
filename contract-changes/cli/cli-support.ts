/** Small helpers shared by the release commands: how they print and leave. */

export function exitWith(message: string, code: number): number {
  (code === 0 ? console.log : console.error)(message);
  return code;
}

/** Bad input from the person running the command: the message says how to fix it. */
export function usageError(message: string): number {
  return exitWith(message, 2);
}
