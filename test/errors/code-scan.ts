// Finds the error codes a TypeScript source names where the compiler cannot hold them to the
// catalogue: problems built positionally (new ProblemError(status, code, title, …)), codes
// handed to ExtractionError, OAuth errors, problem(…), and `{ code: '…', message }` objects
// (job errors, the batch status answer's per-id errors). Read with the compiler's own parser.
import ts from 'typescript';

export type CodeUse =
  | { kind: 'problem'; code: string; status?: number; title?: string; where: string }
  | { kind: 'job failure'; code: string; where: string }
  | { kind: 'oauth'; code: string; status?: number; where: string }
  | { kind: 'error object'; code: string; where: string }
  | { kind: 'unreadable'; what: string; where: string };

const literal = (n: ts.Node | undefined): string | undefined => (n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined);
const number = (n: ts.Node | undefined): number | undefined => (n && ts.isNumericLiteral(n) ? Number(n.text) : undefined);
const calleeName = (e: ts.Expression): string | undefined => (ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined);

export function codeUses(fileName: string, source: string): CodeUse[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const uses: CodeUse[] = [];
  const at = (n: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;

  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) || ts.isCallExpression(node)) {
      const name = calleeName(node.expression);
      const args = node.arguments ?? ts.factory.createNodeArray();
      if (ts.isNewExpression(node) && name === 'ProblemError') {
        const code = literal(args[1]);
        if (code === undefined) uses.push({ kind: 'unreadable', what: 'new ProblemError with a computed code', where: at(node) });
        else uses.push({ kind: 'problem', code, status: number(args[0]), title: literal(args[2]), where: at(node) });
      } else if (ts.isCallExpression(node) && name === 'problem' && ts.isIdentifier(node.expression)) {
        const code = literal(args[0]);
        if (code !== undefined) uses.push({ kind: 'problem', code, where: at(node) });
      } else if (ts.isNewExpression(node) && name === 'ExtractionError') {
        const code = literal(args[1]);
        if (code !== undefined) uses.push({ kind: 'job failure', code, where: at(node) });
      } else if (ts.isNewExpression(node) && name === 'OAuthError') {
        const code = literal(args[1]);
        if (code !== undefined) uses.push({ kind: 'oauth', code, status: number(args[0]), where: at(node) });
      } else if (ts.isCallExpression(node) && name === 'oauthError') {
        const code = literal(args[0]);
        if (code !== undefined) uses.push({ kind: 'oauth', code, status: number(args[1]), where: at(node) });
      }
    }
    if (ts.isObjectLiteralExpression(node)) {
      const props = new Map(node.properties.filter(ts.isPropertyAssignment).map((p) => [p.name.getText(file), p.initializer]));
      const code = literal(props.get('code'));
      if (code !== undefined && props.has('message')) uses.push({ kind: 'error object', code, where: at(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}
