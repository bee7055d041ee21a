/**
 * The packages group's set-up (vitest.config.ts): the mock's package built once for the run, in the main process,
 * and its tarball's path handed to the files that install it (`inject('mockPackage')`). Each built it again before
 * (the bundle, the browser build, the declarations: about 3 s of CPU each time), and two files building into the
 * one folder at once would have taken each other's files.
 */
import type { TestProject } from 'vitest/node';
import { buildMockPackage } from '../../mock/package/build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The path of the mock's packed tarball, `.build/partner-formation-mock-VERSION.tgz`. */
    mockPackage: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('mockPackage', await buildMockPackage());
}
