/** How the battery reads an answer: accepted (`2xx`), refused (`4xx`), and what happened, in words for the report. */
import type { Finding } from './case-types.ts';
import type { Exchange } from './report-types.ts';

const statusOf = (exchange: Exchange): number | undefined => exchange.response?.status;

export const isAccepted = (exchange: Exchange): boolean => {
  const status = statusOf(exchange);
  return status !== undefined && status >= 200 && status < 300;
};

export const isRefused = (exchange: Exchange): boolean => {
  const status = statusOf(exchange);
  return status !== undefined && status >= 400 && status < 500;
};

/** "Answered 401 in 2 ms", "Answered 302 (to …) in 1 ms", "No answer: timeout: …". */
export function answerText(exchange: Exchange): string {
  const { response } = exchange;
  if (!response) return `No answer: ${exchange.error ?? 'none'}`;
  const to = response.location === null ? '' : ` (to ${response.location})`;
  return `Answered ${response.status}${to} in ${Math.round(exchange.durationMs)} ms`;
}

/** Why an answer that is not a 2xx loses a genuine delivery. */
function lostBecause(exchange: Exchange): string {
  const status = statusOf(exchange);
  if (status !== undefined && status >= 300 && status < 400) return 'a redirect is a failed attempt, never followed';
  return 'the service would send it again on its retry schedule, and disable the endpoint after the last attempt';
}

/** Every delivery must have been accepted. */
export function expectAccepted(exchanges: readonly Exchange[], labels: readonly string[] = []): Finding {
  const lines = exchanges.map((exchange, index) => `${labels[index] ? `${labels[index]}: ` : ''}${answerText(exchange)}`);
  const refused = exchanges.find((exchange) => !isAccepted(exchange));
  if (!refused) return { verdict: 'met', observation: `${lines.join('; ')}.` };
  return { verdict: 'unmet', observation: `${lines.join('; ')}: ${lostBecause(refused)}.` };
}

/** The delivery must have been refused with a 4xx. */
export function expectRefused(exchange: Exchange, whyRefuse: string): Finding {
  if (isRefused(exchange)) return { verdict: 'met', observation: `${answerText(exchange)}.` };
  if (isAccepted(exchange)) return { verdict: 'unmet', observation: `${answerText(exchange)}: ${whyRefuse}, and the receiver took it as the service's.` };
  return { verdict: 'unmet', observation: `${answerText(exchange)}: ${whyRefuse}; refuse it with a 4xx (a 5xx or a redirect says that it may be sent again, a timeout that nothing answered).` };
}
