/**
 * A bounded cache of what the SQLite backend reads most (a customer, a customer's companies), in front of the
 * file. It is only right because this process is the file's one writer (the store holds it with EXCLUSIVE
 * locking) and drops an entry at every write that could change it. Least recently used entries go first, so its
 * memory stays within `capacity` entries however much data the file holds.
 */
export interface ReadCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
}

export function createReadCache<V>(capacity: number): ReadCache<V> {
  const entries = new Map<string, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        // Re-inserted: a Map iterates in insertion order, so the first entry is the least recently used.
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
