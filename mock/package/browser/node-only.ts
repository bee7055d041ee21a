/**
 * What the browser build puts in place of the mock's modules that need Node (browser-bundle.ts names them): the
 * SQLite and Redis stores, Prism's engine for unhandled operations, the webhook targets' DNS checks, the proxy's recording. The mock in a
 * browser uses none of them; a call says so.
 */
import { notInBrowser } from './not-in-browser.ts';

export const openSqliteStore = (): never => notInBrowser('The SQLite store');
export const openRedisStore = (): never => notInBrowser('The Redis store');
export const createPrismEngine = (): never => notInBrowser('Answering from examples (--unhandled-operations examples)');
export const allowedTargets = (): never => notInBrowser('Checking webhook targets (--webhook-allow)');
export const openRecording = (): never => notInBrowser('Recording what an upstream answers (--record)');
export class RecordingRefused extends Error {}
/** The live docs' Redoc comes with a clone's tools: never in a browser. */
export const redocScriptPath = (): undefined => undefined;
