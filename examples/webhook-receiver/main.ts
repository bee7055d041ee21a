/**
 * `npm run example:receiver -- [--port 3000] [--secret whsec_…]`: the example receiver, for trying the grader on:
 * prints where it listens, its probe, and the command that grades it. Without a secret (--secret or WEBHOOK_SECRET)
 * it makes one and prints it.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startWebhookReceiver } from './receiver.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3000' }, host: { type: 'string', default: '127.0.0.1' }, secret: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('Usage: npm run example:receiver -- [--port 3000] [--host 127.0.0.1] [--secret whsec_…]\n\nA webhook receiver that gets every case of the grader right (examples/webhook-receiver/receiver.ts). Without\n--secret (or WEBHOOK_SECRET) it makes a secret and prints it. Exit status: 0 stopped; 2 bad usage.');
} else if (!/^\d+$/.test(values.port)) {
  console.error(`example:receiver: error[usage]: --port must be a number, not ${JSON.stringify(values.port)}`);
  process.exitCode = 2;
} else {
  const secret = values.secret ?? process.env.WEBHOOK_SECRET ?? `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = await startWebhookReceiver({ secret, port: Number(values.port), host: values.host });
  console.log(`Webhook receiver on ${receiver.url} (probe: ${receiver.probeUrl})`);
  if (values.secret === undefined && process.env.WEBHOOK_SECRET === undefined) console.log(`Signing secret (made now): ${secret}`);
  console.log(`Grade it: WEBHOOK_SECRET=${secret} npm run grade:receiver -- ${receiver.url} --probe ${receiver.probeUrl}`);
  const stop = () => void receiver.close();
  process.once('SIGINT', stop).once('SIGTERM', stop);
}
