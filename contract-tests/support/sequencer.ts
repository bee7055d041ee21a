/**
 * Runs the coverage check last: it reads what every other file recorded. Files run one at a time
 * (`fileParallelism: false`), in this order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const coverageTestFile = 'coverage.test.ts';

export class CoverageLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isCoverage = (spec: TestSpecification) => spec.moduleId.endsWith(`/${coverageTestFile}`);
    return [...sorted.filter((spec) => !isCoverage(spec)), ...sorted.filter(isCoverage)];
  }
}
