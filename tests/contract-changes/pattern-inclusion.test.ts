/**
 * Whether one pattern accepts every string another does, decided on their structure: what lets the gate call a
 * narrowed pattern on what a client receives, or a widened one on what it sends, compatible.
 */
import { expect, it } from 'vitest';
import { patternIncludes } from '../../contract-changes/pattern-inclusion.ts';

it.each([
  ['^[A-Z0-9]+$', '^[A-Z]+$', true],
  ['^[A-Z]+$', '^[A-Z0-9]+$', false],
  ['^wid_[a-z0-9_]+$', '^wid_[a-z0-9]+$', true],
  ['^\\S+$', '^[^\\s\\x00-\\x1F]+$', true],
  ['^\\d{3}-\\d{2}$', '^[0-4]{3}-\\d{2}$', true],
  ['^\\d{3}-\\d{2}$', '^\\d{2,3}-\\d{2}$', false],
  ['^(a|b)$', '^(a|b|c)$', false],
  ['^wid_', '^wdg_', false],
  // `.` refuses line terminators, U+2028 among them, which a class that only excludes control characters lets in.
  ['^\\S(.*\\S)?$', '^[^\\s\\x00-\\x1F]([^\\x00-\\x1F]*[^\\s\\x00-\\x1F])?$', false],
  ['^\\S(.*\\S)?$', '^[^\\s\\x00-\\x1F]([^\\x00-\\x1F\\u2028\\u2029]*[^\\s\\x00-\\x1F])?$', true],
  ['(', '^a$', false],
])('%s includes %s: %s', (wider, narrower, included) => {
  expect(patternIncludes(wider, narrower)).toBe(included);
});
