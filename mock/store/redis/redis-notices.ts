/**
 * Notices (notices.ts) across the processes of one Redis store. Each process delivers its own at once, and
 * publishes them on the database's channel, gathered over 50 ms: a busy process publishes once per 50 ms at most,
 * never once per commit. It hears the others' on a connection of its own (a subscribed connection can send nothing
 * else), opened when something first listens.
 *
 * Pub/sub is fire and forget: what is published while a process is disconnected never reaches it. So when its
 * connection comes back, it delivers `everything` (anything may have changed meanwhile), and its listeners read
 * again. Anyone who can reach the Redis can publish on the channel, too: a message is read as data, bounded, and
 * dropped when it is not what a process publishes.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { everything, Notices, type NoticeListener, type Noticing } from '../notices.ts';

const gatherMs = 50;
/** Channels gathered at most before one publish says `everything` instead: a message stays small. */
const maxGathered = 512;
/** The longest message heard; one past it is dropped. */
const maxMessageLength = 64 * 1024;

export class RedisNotices extends Notices {
  /** This process's own, to tell its messages from the others'. */
  private readonly origin = randomUUID();
  private readonly channel: string;
  private gathered = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private subscriber: Redis | undefined;

  constructor(private readonly client: Redis) {
    super();
    // Pub/sub channels are the server's, not a database's: two mocks on two databases of one Redis hear only their own.
    this.channel = `pfm:notices:${client.options.db ?? 0}`;
  }

  override listen(listener: NoticeListener): () => void {
    this.subscriber ??= this.subscribe();
    return super.listen(listener);
  }

  override deliverOf(tx: Noticing): void {
    if (tx.notices === undefined) return;
    this.deliver(tx.notices);
    for (const channel of tx.notices) this.gathered.add(channel);
    if (this.gathered.size > maxGathered) this.gathered = new Set([everything]);
    this.timer ??= setTimeout(() => this.publish(), gatherMs);
  }

  /** Publishes what is gathered now, and stops listening. */
  close(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.publish();
    }
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  private publish(): void {
    this.timer = undefined;
    const channels = [...this.gathered];
    this.gathered = new Set();
    // Lost when Redis is down, as any notice published then would be: its listeners read again once it is back.
    if (this.client.status === 'ready') this.client.publish(this.channel, JSON.stringify({ origin: this.origin, channels })).catch(() => undefined);
  }

  private subscribe(): Redis {
    const subscriber = this.client.duplicate({ connectionName: 'partner-formation-mock:notices', enableOfflineQueue: true });
    let ready = false;
    subscriber.on('error', () => undefined);
    subscriber.on('ready', () => {
      // ioredis subscribes again by itself on a new connection; what was published in between is lost.
      if (ready) this.deliver(new Set([everything]));
      ready = true;
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel || message.length > maxMessageLength) return;
      const heard = readMessage(message);
      if (heard && heard.origin !== this.origin && heard.channels.length > 0) this.deliver(new Set(heard.channels));
    });
    subscriber.connect().catch(() => undefined);
    subscriber.subscribe(this.channel).catch(() => undefined);
    return subscriber;
  }
}

function readMessage(message: string): { origin: string; channels: string[] } | undefined {
  try {
    const parsed = JSON.parse(message) as { origin?: unknown; channels?: unknown };
    if (typeof parsed.origin !== 'string' || !Array.isArray(parsed.channels) || parsed.channels.length > maxGathered + 1) return undefined;
    if (!parsed.channels.every((channel): channel is string => typeof channel === 'string' && channel.length <= 256)) return undefined;
    return { origin: parsed.origin, channels: parsed.channels };
  } catch {
    return undefined;
  }
}
