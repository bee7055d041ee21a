/** Reference data is listed in code order; plain code-unit order keeps it independent of the host's locale. */
export function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
