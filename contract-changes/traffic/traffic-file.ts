/**
 * A traffic file as the review reads it: a traffic document (the mock's admin contract's `TrafficRecording`, which
 * `GET /_mock/requests/export`, `--record-traffic FILE` and the contract suite write), read as data and nothing
 * else. It is refused, with a code a script can branch on, when it is larger than the document's bound (before a
 * byte of it is read), is not JSON, is not such a document (checked against the admin contract's schema, which
 * bounds every string and list in it), or holds an API key or a webhook secret. Nothing in it is followed: a `$ref`
 * in it is a string like any other, and a body is text, parsed only to be checked.
 */
import { open } from 'node:fs/promises';
import { maskCredentials } from '../../contract-model/credentials.ts';
import { loadContract } from '../../contract-model/document.ts';
import { generatedPath } from '../../contract-model/generated-files.ts';
import { schemaCompilerOf, type SchemaCheck } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { components } from '../../generated/mock-admin/openapi.js';

export type TrafficRecording = components['schemas']['TrafficRecording'];
export type TrafficExchange = components['schemas']['TrafficExchange'];

export type TrafficProblemCode = 'traffic-unreadable' | 'traffic-too-large' | 'traffic-not-json' | 'traffic-invalid' | 'traffic-holds-credential';

/** Why a traffic file is refused; `code` is stable, the message says what to do. */
export class TrafficProblem extends Error {
  constructor(readonly code: TrafficProblemCode, readonly file: string, message: string) {
    super(`${file}: ${message}`);
  }
}

export interface TrafficFile {
  /** As it was named. */
  file: string;
  document: TrafficRecording;
}

let schema: Promise<SchemaCheck> | undefined;
/** The admin contract's `TrafficRecording`, compiled once. */
const trafficSchema = (): Promise<SchemaCheck> => (schema ??= loadContract(generatedPath('mock-admin', 'openapi.json')).then((admin) => schemaCompilerOf(admin).component('TrafficRecording')));

export async function readTrafficFile(file: string, bounds = contractFacts.traffic): Promise<TrafficFile> {
  const text = await readBounded(file, bounds.maxBytes);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new TrafficProblem('traffic-not-json', file, `not JSON (${(error as Error).message}): a traffic file is the JSON document GET /_mock/requests/export or --record-traffic writes.`);
  }
  const isTraffic = await trafficSchema();
  let valid: boolean;
  try {
    valid = isTraffic(document);
  } catch (error) {
    throw new TrafficProblem('traffic-invalid', file, `cannot be read as a traffic document (${(error as Error).message}).`);
  }
  if (!valid) throw new TrafficProblem('traffic-invalid', file, `not a traffic document (the admin contract's TrafficRecording): ${describeSchemaErrors('traffic', isTraffic.errors, isTraffic.more).join('; ')}.`);
  const recording = document as TrafficRecording;
  const at = recording.exchanges.findIndex(holdsCredential);
  if (at >= 0 || holdsCredential(recording.recordedBy)) {
    throw new TrafficProblem('traffic-holds-credential', file, `holds an API key or a webhook secret${at < 0 ? '' : ` (exchange ${at})`}: a traffic file must hold none. Record it again with the mock, which masks them, and revoke the key.`);
  }
  return { file, document: recording };
}

/**
 * Whether a credential is in any string or name of a value, however it is written (credentials.ts reads through
 * every escape). Each string is read on its own: most hold no escape and are passed over at once, where the whole
 * file's text, which JSON escapes, would be read through its every escape.
 */
function holdsCredential(value: unknown): boolean {
  if (typeof value === 'string') return maskCredentials(value) !== value;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsCredential);
  return Object.entries(value).some(([name, item]) => holdsCredential(name) || holdsCredential(item));
}

/** The file's text, refused unread when it is larger than `maxBytes` (and cut at one byte more if it grows meanwhile). */
async function readBounded(file: string, maxBytes: number): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new TrafficProblem('traffic-unreadable', file, `cannot be read (${(error as Error).message}).`);
  }
  try {
    const { size, isFile } = await handle.stat().then((stats) => ({ size: stats.size, isFile: stats.isFile() }));
    if (!isFile) throw new TrafficProblem('traffic-unreadable', file, 'is not a file.');
    if (size > maxBytes) throw new TrafficProblem('traffic-too-large', file, `is ${size} bytes, over the ${maxBytes} a traffic document may take: record less, or split it into several files.`);
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, 0);
    if (bytesRead > maxBytes) throw new TrafficProblem('traffic-too-large', file, `is over the ${maxBytes} bytes a traffic document may take.`);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, bytesRead));
    } catch {
      throw new TrafficProblem('traffic-not-json', file, 'is not UTF-8 text, as a JSON document is.');
    }
  } finally {
    await handle.close();
  }
}
