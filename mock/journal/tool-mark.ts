/**
 * The mark a tool of the mock puts on the requests it sends itself (`X-Mock-Tool: console`: the console's own reads
 * and controls), so that what the partner's app sent can be told apart: the journal records the tool, its lists
 * leave such requests out on request, and neither a traffic recording nor a proxy's upstream gets them. Only the
 * tools the admin contract names (`JournalTool`) count.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JournalTool } from './journal-records.ts';

export const toolHeader = 'x-mock-tool';

const tools: Record<JournalTool, true> = { console: true };

/** The tool that sent a request, from its headers; undefined for the partner's own. */
export function toolOf(headers: IncomingHttpHeaders): JournalTool | undefined {
  const value = headers[toolHeader];
  return typeof value === 'string' && Object.hasOwn(tools, value) ? (value as JournalTool) : undefined;
}
