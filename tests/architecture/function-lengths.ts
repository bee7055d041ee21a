/**
 * The functions of a folder and their lengths in lines, read with the TypeScript compiler's parser: every function
 * declaration, method, arrow function and function expression, counted from its first line to its last.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(path) && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '(anonymous)';
}

export function functionLengths(folder: string, root: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of filesUnder(folder)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ file: relative(root, file), name: nameOf(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
