// Exact call resolution for TypeScript through the compiler's getResolvedSignature.
// Used by benchmarks/call_recall.py; never part of graphrag.
//
// Usage: node call_edges.js TYPESCRIPT_MODULE_DIR ROOT  -> one tab-separated line per
// call site:  file  line  kind  target_file  target_line  target_name  overload_signature
// Paths are relative to ROOT; target_file is "-" outside ROOT (lib.d.ts, .d.ts files);
// sites whose signature has no declaration are not printed.
// kind: bare | this | super | static | method | new | super-call
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") walk(full, out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(full);
    }
  }
  return out;
}

const files = walk(root, []);
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, noEmit: true,
  strict: false, skipLibCheck: true, lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
  experimentalDecorators: true, jsx: ts.JsxEmit.React, allowJs: false,
});
const checker = program.getTypeChecker();
const lines = [];

function rel(sf) {
  const name = path.resolve(sf.fileName);
  if (sf.isDeclarationFile || !name.startsWith(root + path.sep)) return null;
  return path.relative(root, name).split(path.sep).join("/");
}

function lineOf(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function declName(decl) {
  if (ts.isConstructorDeclaration(decl)) return "constructor";
  if (decl.name && ts.isIdentifier(decl.name)) return decl.name.text;
  if (decl.name) return decl.name.getText();
  const parent = decl.parent;  // `const f = () => ...`, `x: function () {}`
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText();
  return "?";
}

function receiverKind(expr) {
  if (expr.kind === ts.SyntaxKind.ThisKeyword) return "this";
  if (expr.kind === ts.SyntaxKind.SuperKeyword) return "super";
  const sym = checker.getSymbolAtLocation(expr);
  if (sym && (sym.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Enum))) return "static";
  return "method";
}

function visit(sf, file, node) {
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    const callee = node.expression;
    let kind;
    let at;
    if (ts.isNewExpression(node)) {
      kind = "new";
      at = node.getStart(sf);
    } else if (callee.kind === ts.SyntaxKind.SuperKeyword) {
      kind = "super-call";
      at = callee.getStart(sf);
    } else if (ts.isPropertyAccessExpression(callee)) {
      kind = receiverKind(callee.expression);
      at = callee.name.getStart(sf);
    } else {
      kind = ts.isIdentifier(callee) ? "bare" : "expr";
      at = callee.getStart(sf);
    }
    let sig;
    try { sig = checker.getResolvedSignature(node); } catch (e) { sig = undefined; }
    const decl = sig && sig.declaration;
    if (decl && !ts.isJSDocSignature(decl)) {
      const dsf = decl.getSourceFile();
      const target = rel(dsf);
      const name = declName(decl);
      if (target === null) {
        lines.push([file, lineOf(sf, at), kind, "-", 0, name, 0].join("\t"));
      } else {
        let target_decl = decl;
        let overload = 0;
        if ((ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) ||
             ts.isConstructorDeclaration(decl) || ts.isMethodSignature(decl)) && !decl.body) {
          // an overload signature: report the implementation (or the first signature of
          // a bodiless set, e.g. an interface's), the declaration that holds them all
          overload = 1;
          const sym = decl.symbol;
          const decls = (sym && sym.declarations) || [];
          const same = decls.filter((d) => d.getSourceFile() === dsf && d.kind === decl.kind);
          target_decl = same.find((d) => d.body) || same[0] || decl;
        }
        lines.push([file, lineOf(sf, at), kind, target,
          lineOf(dsf, target_decl.getStart(dsf)), name, overload].join("\t"));
      }
    }
  }
  ts.forEachChild(node, (child) => visit(sf, file, child));
}

for (const sf of program.getSourceFiles()) {
  const file = rel(sf);
  if (file !== null) visit(sf, file, sf);
}
process.stdout.write(lines.join("\n") + (lines.length ? "\n" : ""));
