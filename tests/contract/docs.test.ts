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

describe('the request samples', async () => {
  const { withCodeSamples } = await import('../../scripts/code-samples.ts');
  const { loadContractSync } = await import('../../contract-model/document.ts');
  const { listOperations } = await import('../../contract-model/operations.ts');
  const contract = loadContractSync();
  const sampled = withCodeSamples(contract);

  it.each(listOperations(contract).map((operation) => [operation.operationId, operation] as const))('%s has a curl and a client sample', (operationId, operation) => {
    const raw = (sampled.paths[operation.pathTemplate] as Record<string, Record<string, unknown>>)[operation.method.toLowerCase()];
    const samples = raw?.['x-codeSamples'] as { lang: string; label: string; source: string }[];
    expect(samples.map((sample) => sample.label)).toEqual(['curl', 'Client']);
    expect(samples[0]?.source).toMatch(new RegExp(`^curl -X ${operation.method} 'https://sandbox\\.api\\.partner-formation\\.example/v1/`));
    expect(samples[0]?.source).not.toMatch(/\{[a-zA-Z]+Id\}/);
    expect(samples[1]?.source).toContain(operationId === 'downloadCompanyDocument' ? 'api.downloadDocument(' : `api.${operationId}(`);
  });

  it('are in the docs, and the contract itself stays without them', () => {
    expect(html).toContain('api.createCustomer(');
    expect(JSON.stringify(contract)).not.toContain('x-codeSamples');
  });
});
