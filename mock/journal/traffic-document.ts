/**
 * A traffic document written a piece at a time: its head, each exchange as it comes, and its tail (how many were
 * left out). Each exchange is one line of JSON, masked as a whole as it is encoded (contract-model/credentials.ts:
 * every API key and webhook secret, however it is written), and the document keeps to the bounds the admin contract
 * states (`TrafficRecording`: at most so many exchanges, so many bytes), counting what it leaves out.
 */
import { maskCredentials } from '../../contract-model/credentials.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { TrafficExchange, TrafficSource } from './traffic-exchange.ts';

export const trafficFormat = 'partner-formation-traffic/1';

export const trafficHead = (source: TrafficSource): string => `{"format":${JSON.stringify(trafficFormat)},"recordedBy":${JSON.stringify(source)},"exchanges":[`;

export const trafficTail = (omitted: number): string => `\n],"omitted":${omitted}}\n`;

/** Room for the tail's count however large it grows, so that the bound holds whatever is left out after. */
const tailRoom = trafficTail(Number.MAX_SAFE_INTEGER).length;

export function encodeExchange(exchange: TrafficExchange): string {
  return maskCredentials(JSON.stringify(exchange));
}

/** What a document has taken so far, against its bounds: `take` says whether one more exchange of that size fits. */
export interface TrafficBounds {
  take(encodedBytes: number): boolean;
  readonly kept: number;
  readonly omitted: number;
}

export function trafficBounds(headBytes: number, bounds = contractFacts.traffic): TrafficBounds {
  let bytes = headBytes + tailRoom;
  let kept = 0;
  let omitted = 0;
  return {
    take(encodedBytes) {
      // Its line, and the separator before it.
      const more = encodedBytes + 2;
      if (kept >= bounds.maxExchanges || bytes + more > bounds.maxBytes) {
        omitted += 1;
        return false;
      }
      bytes += more;
      kept += 1;
      return true;
    },
    get kept() {
      return kept;
    },
    get omitted() {
      return omitted;
    },
  };
}

/**
 * A whole document from its exchanges, each encoded, within the bounds; `omitted`: those left out before. Pages come
 * one at a time, and the event loop is given back every `sliceMs` of encoding: a 16 MiB journal takes seconds to
 * encode (every line is masked, and a line of escapes costs milliseconds), and every other request waits while it runs.
 */
const sliceMs = 10;

export async function trafficDocument(source: TrafficSource, pages: AsyncIterable<{ exchanges: readonly TrafficExchange[]; omitted: number }>): Promise<Buffer> {
  const head = trafficHead(source);
  const bounds = trafficBounds(Buffer.byteLength(head));
  const lines: string[] = [];
  let omittedBefore = 0;
  let slice = performance.now();
  for await (const page of pages) {
    omittedBefore += page.omitted;
    for (const exchange of page.exchanges) {
      const line = encodeExchange(exchange);
      if (bounds.take(Buffer.byteLength(line))) lines.push(line);
      if (performance.now() - slice >= sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }
  return Buffer.from(`${head}${lines.length === 0 ? '' : `\n${lines.join(',\n')}`}${trafficTail(bounds.omitted + omittedBefore)}`);
}
