; Declarations shared by JavaScript (and JSX) and TypeScript/TSX: the patterns both
; grammars know, read first by `javascript-definitions.scm` and
; `typescript-definitions.scm` (their `; inherits:` line). Scoping (which class/function
; encloses what), export wrappers and doc comments are worked out in Python from the
; tree, so the patterns capture whole nodes only.

(class_declaration
  name: (_)) @definition.class

(function_declaration
  name: (identifier)) @definition.function

(generator_function_declaration
  name: (identifier)) @definition.function

; `const f = (...) => ...` / `const f = function () {}` (top level filtered in Python)
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression)]) @definition.function_variable

; CommonJS `exports.f = ...` / `module.exports.f = ...`
(expression_statement
  (assignment_expression
    left: (member_expression)
    right: [(arrow_function) (function_expression)])) @definition.function_export

; `export default function () {}` / `export default () => {}`
(export_statement
  value: [(arrow_function) (function_expression)]) @definition.function_default

(method_definition
  name: (_)) @definition.method

; Every named variable: local/module variable types.
(variable_declarator
  name: (identifier)) @definition.variable

; `for (const x of xs)`: x is an element of xs
(for_in_statement) @definition.loop

; `const api = { list() {}, show: (id) => ... }`: an OBJECT with METHODs (top level,
; only when it holds a function; filtered in Python)
(variable_declarator
  name: (identifier)
  value: (object)) @definition.object_literal

(pair
  key: (property_identifier)
  value: [(arrow_function) (function_expression)]) @definition.object_function
