import { ts, type TypeScript } from './typescript.js';

/**
 * What the shape checks (test/unit/source-shapes.test.ts: public members, module state and the
 * vocabulary) read of one source file, by the TypeScript compiler's parse alone: pure, no files,
 * no type checking. Each takes a file's text, or its parse (`parseSource`), so that the three
 * checks of src/ parse each file once.
 */

/** A file's syntax tree, with parents set (what every check below walks). */
export function parseSource(fileName: string, text: string): TypeScript.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

const parsed = (fileName: string, text: string | TypeScript.SourceFile) => (typeof text === 'string' ? parseSource(fileName, text) : text);

/** A class and how many public members it offers: methods, getters/setters (one per name) and public fields. */
export interface ClassShape {
  name: string;
  publicMembers: string[];
}

function isHidden(member: TypeScript.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  return modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
}

function memberName(member: TypeScript.ClassElement, source: TypeScript.SourceFile): string | undefined {
  if (ts.isConstructorDeclaration(member) || ts.isClassStaticBlockDeclaration(member) || ts.isIndexSignatureDeclaration(member)) return undefined;
  if (ts.isSemicolonClassElement(member) || !member.name) return undefined;
  return member.name.getText(source);
}

/** Public parameter properties (`constructor(readonly x: T)`) are public fields too. */
function parameterFields(node: TypeScript.ClassLikeDeclaration, source: TypeScript.SourceFile): string[] {
  const ctor = node.members.find(ts.isConstructorDeclaration);
  if (!ctor) return [];
  return ctor.parameters
    .filter((p) => {
      const modifiers = ts.getModifiers(p) ?? [];
      const isProperty = modifiers.some((m) => [ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.ReadonlyKeyword].includes(m.kind));
      const hidden = modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
      return isProperty && !hidden;
    })
    .map((p) => p.name.getText(source));
}

export function classShapes(fileName: string, text: string | TypeScript.SourceFile): ClassShape[] {
  const source = parsed(fileName, text);
  const out: ClassShape[] = [];
  const visit = (node: TypeScript.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const names = new Set<string>(parameterFields(node, source));
      for (const member of node.members) {
        const name = memberName(member, source);
        // Overload signatures and a getter with its setter are one member each.
        if (name !== undefined && !isHidden(member)) names.add(name);
      }
      out.push({ name: node.name?.text ?? '(anonymous)', publicMembers: [...names] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * Module-level state: a `let` or `var` at the top of a module, or a top-level `const` whose value
 * the module changes later (a Map, Set or WeakMap it sets, an array it pushes to, an object whose
 * fields it assigns, an AsyncLocalStorage it runs). Constant tables are not state.
 */
export interface ModuleState {
  name: string;
  kind: 'let' | 'var' | 'mutated const';
}

const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'run', 'enterWith']);

/** The outermost `a.b[c].d` chain a reference is the head of. */
function chainTop(node: TypeScript.Node): TypeScript.Node {
  let top = node;
  while (
    (ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top) ||
    (ts.isElementAccessExpression(top.parent) && top.parent.expression === top)
  ) {
    top = top.parent;
  }
  return top;
}

function isAssignmentTarget(node: TypeScript.Node): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.left === node)
    return parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent))
    return [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(parent.operator);
  return ts.isDeleteExpression(parent);
}

/** Whether this reference changes what the name holds: a mutator called on it (or on something in it), or a field of it assigned. */
function mutates(reference: TypeScript.Identifier): boolean {
  const top = chainTop(reference);
  if (top !== reference && isAssignmentTarget(top)) return true;
  if (!ts.isPropertyAccessExpression(top) || !ts.isCallExpression(top.parent) || top.parent.expression !== top) return false;
  return MUTATORS.has(top.name.text);
}

const COLLECTIONS = /^new (Map|Set|WeakMap|WeakSet|Array)\b/;

/** A collection handed to a function may be filled by it (a memo's helper): counted as changed. */
function handedOver(reference: TypeScript.Identifier): boolean {
  const parent = reference.parent;
  return (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && (parent.arguments ?? []).some((argument) => argument === reference);
}

/**
 * Every identifier of a file that reads or writes a name (not `x.name`'s property name), by name:
 * one walk of the file, instead of one for each top-level const (which cost most of the check).
 */
function identifiersByName(source: TypeScript.SourceFile): Map<string, TypeScript.Identifier[]> {
  const out = new Map<string, TypeScript.Identifier[]>();
  const visit = (node: TypeScript.Node): void => {
    if (ts.isIdentifier(node) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) {
      const list = out.get(node.text);
      if (list) list.push(node);
      else out.set(node.text, [node]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The references to `name` outside its declaration (the declaration's own subtree left out, as its identifier is). */
function referencesOf(identifiers: Map<string, TypeScript.Identifier[]>, name: string, declaration: TypeScript.Node): TypeScript.Identifier[] {
  return (identifiers.get(name) ?? []).filter((node) => !within(node, declaration));
}

function within(node: TypeScript.Node, ancestor: TypeScript.Node): boolean {
  for (let at: TypeScript.Node | undefined = node; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

export function moduleState(fileName: string, text: string | TypeScript.SourceFile): ModuleState[] {
  const source = parsed(fileName, text);
  const out: ModuleState[] = [];
  let identifiers: Map<string, TypeScript.Identifier[]> | undefined;
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const flags = statement.declarationList.flags;
    const kind = flags & ts.NodeFlags.Let ? 'let' : flags & ts.NodeFlags.Const ? 'const' : 'var';
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (kind !== 'const') out.push({ name, kind });
      if (kind !== 'const' || !ts.isIdentifier(declaration.name)) continue;
      const collection = declaration.initializer !== undefined && COLLECTIONS.test(declaration.initializer.getText(source));
      const references = referencesOf((identifiers ??= identifiersByName(source)), name, declaration.name);
      if (references.some((r) => mutates(r) || (collection && handedOver(r)))) out.push({ name, kind: 'mutated const' });
    }
  }
  return out;
}

/** The named things a source declares: `Class.method` for a class's methods, the bare name for a function. Pure. */
export function declaredNames(fileName: string, text: string | TypeScript.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: TypeScript.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      for (const member of node.members) {
        if (ts.isMethodDeclaration(member) && ts.isIdentifier(member.name)) out.push(`${node.name.text}.${member.name.text}`);
      }
    }
    if (ts.isFunctionDeclaration(node) && node.name) out.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(parsed(fileName, text));
  return out;
}
