/** A fixed-capacity FIFO that drops its oldest item when full, so a long-running mock keeps bounded memory. */
export interface RingBuffer<T> {
  push(item: T): void;
  /** Oldest first. */
  toArray(): T[];
  readonly size: number;
}

export function createRingBuffer<T>(capacity: number): RingBuffer<T> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  const items: (T | undefined)[] = new Array<T | undefined>(capacity);
  let start = 0;
  let size = 0;
  return {
    push(item) {
      items[(start + size) % capacity] = item;
      if (size < capacity) size += 1;
      else start = (start + 1) % capacity;
    },
    toArray() {
      const out: T[] = [];
      for (let i = 0; i < size; i += 1) out.push(items[(start + i) % capacity] as T);
      return out;
    },
    get size() {
      return size;
    },
  };
}
