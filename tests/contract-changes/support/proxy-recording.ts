/**
 * Traffic recorded through the mock as a proxy (`--upstream`, `--record-traffic`), of a sandbox played by another
 * mock: what a team records in front of its real sandbox, made in the test's process.
 */
import { join } from 'node:path';
import { startTestMock, type TestMock } from '../../mock/support/mock-harness.ts';

/** Runs `traffic` through a proxy recording to `folder/name`, and returns the file once the proxy has stopped. */
export async function recordThroughProxy(folder: string, name: string, traffic: (proxy: TestMock) => Promise<void>, upstream?: string): Promise<string> {
  const sandbox = upstream === undefined ? await startTestMock() : undefined;
  const path = join(folder, name);
  const proxy = await startTestMock({ upstream: { url: upstream ?? sandbox!.url }, recordTraffic: path });
  try {
    await traffic(proxy);
  } finally {
    await proxy.close();
    await sandbox?.close();
  }
  return path;
}
