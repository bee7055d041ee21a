/** A store URL as it may be shown (logs, health): without its password. */
export function maskStoreUrl(raw: string): string {
  return raw.replace(/^(rediss?:\/\/)([^@/]*)@/, (_match, scheme: string, userInfo: string) => `${scheme}${userInfo.includes(':') ? `${userInfo.split(':')[0]}:***` : '***'}@`);
}
