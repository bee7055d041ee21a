/** Breaking changes accepted on purpose: matched by pointer and description, with a reason; stale entries found. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyAccepted, readAccepted } from '../../contract-changes/accepted.ts';
import type { ClassifiedChange } from '../../contract-changes/classify.ts';

const change = (pointer: string, what: string, category: ClassifiedChange['category'] = 'breaking'): ClassifiedChange => ({
  category, level: category === 'breaking' ? 'major' : 'minor', what, why: 'because',
  location: { pointer, scope: 'POST /v1/widgets (createWidget)', part: 'request body', field: '/name' }, kind: 'modified',
});

describe('applyAccepted', () => {
  const changes = [
    change('#/paths/~1v1~1widgets/post/requestBody/content/application~1json/schema/properties/name/pattern', 'pattern "a" → "b"'),
    change('#/paths/~1v1~1widgets/post/requestBody/content/application~1json/schema/required', 'now required: size'),
    change('#/paths/~1v1~1widgets/post/description', 'description changed', 'changed'),
  ];

  it('accepts the breaking changes an entry matches, as minor, with its reason, and no others', () => {
    const { changes: judged, unused } = applyAccepted(changes, [{ pointer: '/properties/name/pattern$', what: '^pattern ', reason: 'A security fix.' }]);
    expect(judged.map((c) => [c.category, c.level, c.accepted])).toEqual([
      ['breaking', 'minor', 'A security fix.'],
      ['breaking', 'major', undefined],
      ['changed', 'minor', undefined],
    ]);
    expect(unused).toEqual([]);
  });

  it('needs every field of an entry to match, and reports an entry that matches nothing', () => {
    const entry = { pointer: '/properties/name/pattern$', what: '^now required', reason: 'Matches nothing.' };
    const { changes: judged, unused } = applyAccepted(changes, [entry]);
    expect(judged.every((c) => c.accepted === undefined)).toBe(true);
    expect(unused).toEqual([entry]);
  });
});

describe('readAccepted', () => {
  let folder: string;
  let files = 0;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'accepted-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });
  const file = async (text: string) => {
    const path = join(folder, `accepted-${(files += 1)}.yaml`);
    await writeFile(path, text);
    return path;
  };

  it('reads the entries, and an empty list', async () => {
    expect(await readAccepted(await file('accepted:\n  - what: "^x"\n    reason: A reason long enough to read.\n'))).toEqual([{ what: '^x', reason: 'A reason long enough to read.' }]);
    expect(await readAccepted(await file('accepted: []\n'))).toEqual([]);
  });

  it.each([
    ['accepted:\n  - what: "^x"\n', 'give a `reason`'],
    ['accepted:\n  - reason: A reason long enough to read.\n', 'give `pointer` or `what`'],
    ['accepted:\n  - what: "(("\n    reason: A reason long enough to read.\n', 'is not a regular expression'],
    ['accepted: {}\n', 'must be a list'],
  ])('refuses %j, saying what to fix', async (text, message) => {
    await expect(readAccepted(await file(text))).rejects.toThrow(message);
  });
});
