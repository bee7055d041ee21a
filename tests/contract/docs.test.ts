import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const html = await readFile(new URL('../../generated/docs/index.html', import.meta.url), 'utf8');

describe('the reference docs', () => {
  it('load no script from the network', () => {
    expect(html).not.toMatch(/<script[^>]+src=["']?(https?:)?\/\//i);
  });

  it('load no stylesheet or font from the network', () => {
    expect(html).not.toMatch(/<link[^>]+href=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@font-face[^}]*url\(\s*["']?https?:/i);
  });

  it('embed the renderer and the contract itself', () => {
    expect(html.length).toBeGreaterThan(1_000_000);
    expect(html).toContain('Partner Formation API');
    expect(html).toContain('simulateCompanyFormation');
  });
});

describe('the link to the changelog', () => {
  const docsUrl = new URL('../../generated/docs/index.html', import.meta.url);
  const link = /href=\\?"(\.\.\/\.\.\/CHANGELOG\.md)\\?"/.exec(html)?.[1];

  it('is in the docs, relative, so that it works from the file and from the mock', () => {
    expect(link).toBe('../../CHANGELOG.md');
  });

  it('opens CHANGELOG.md from generated/docs/ (file://) and from /docs on the mock (/CHANGELOG.md)', async () => {
    const changelog = await readFile(new URL(link!, docsUrl), 'utf8');
    expect(changelog).toMatch(/^# Changelog/);
    expect(new URL(link!, 'http://localhost:4010/docs').pathname).toBe('/CHANGELOG.md');
  });
});
