/** The memory of a process on this machine, as the benchmarks print it: from /proc (Linux), in MiB. */
import { readFile } from 'node:fs/promises';

/** Its resident set now (VmRSS) and at its peak so far (VmHWM). */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}
