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
