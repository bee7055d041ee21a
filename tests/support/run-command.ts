/**
 * A command run to its end, its exit status and output kept whatever the status: what a test of a CLI looks at. A
 * status other than 0 is a result here, not an error (execFile rejects on it). A command that did not exit with a
 * status of its own (killed by a signal, or never started: execFile's code is then null or a string) is status 1.
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { promisify } from 'node:util';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCommand(command: string, args: readonly string[], options: ExecFileOptions = {}): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, [...args], { maxBuffer: 64 * 1024 * 1024, ...options, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof code === 'number' ? code : 1, stdout, stderr };
  }
}
