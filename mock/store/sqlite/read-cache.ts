/**
 * A bounded cache of what the SQLite backend reads (values by key), in front of the file. It is only right because
 * this process is the file's one writer and updates it at every write it makes. Two generations rather than a
 * strict least-recently-used order: a hit costs a lookup, not a reordering (which, on every read of every request,
 * cost more than the reads saved), and what is still read survives into the next generation.
 */
export interface ReadCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
}

/** At most `2 × capacity` entries: the current generation, and the one before it. */
export function createReadCache<V>(capacity: number): ReadCache<V> {
  let young = new Map<string, V>();
  let old = new Map<string, V>();
  const set = (key: string, value: V) => {
    young.set(key, value);
    if (young.size >= capacity) {
      old = young;
      young = new Map();
    }
  };
  return {
    get(key) {
      const value = young.get(key);
      if (value !== undefined) return value;
      const older = old.get(key);
      // Still read: kept for the next generation.
      if (older !== undefined) set(key, older);
      return older;
    },
    set(key, value) {
      old.delete(key);
      set(key, value);
    },
    delete(key) {
      young.delete(key);
      old.delete(key);
    },
    clear() {
      young = new Map();
      old = new Map();
    },
  };
}
