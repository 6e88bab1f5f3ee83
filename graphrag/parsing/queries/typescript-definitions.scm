; Declarations of a TypeScript/TSX file (compiled for both grammars). Scoping (which
; class/function encloses what), export wrappers and doc comments are worked out in
; Python from the tree, so the patterns capture whole nodes only.

(class_declaration
  name: (type_identifier)) @definition.class

(abstract_class_declaration
  name: (type_identifier)) @definition.class

(interface_declaration
  name: (type_identifier)) @definition.interface

(enum_declaration
  name: (identifier)) @definition.enum

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

(abstract_method_signature
  name: (_)) @definition.method

; Overload signatures: attached to the implementation that follows them.
(function_signature
  name: (_)) @definition.overload_signature

(class_body
  (method_signature
    name: (_)) @definition.overload_signature)

(interface_body
  (method_signature
    name: (_)) @definition.method)

(public_field_definition
  name: (_)) @definition.field

(interface_body
  (property_signature
    name: (_)) @definition.field)

; Every named variable: local/module variable types.
(variable_declarator
  name: (identifier)) @definition.variable

; `for (const x of xs)`: x is an element of xs
(for_in_statement) @definition.loop

; Callbacks (functions that are no symbol): their parameters type names in the enclosing
; symbol, declared or from the parameter type of the function they are passed to.
(arrow_function) @definition.callback
(function_expression) @definition.callback

; `const api = { list() {}, show: (id) => ... }`: an OBJECT with METHODs (top level,
; only when it holds a function; filtered in Python)
(variable_declarator
  name: (identifier)
  value: (object)) @definition.object_literal

(pair
  key: (property_identifier)
  value: [(arrow_function) (function_expression)]) @definition.object_function

; `namespace Money { export function cents() {} }`: an OBJECT holding its declarations
(internal_module
  name: (identifier)) @definition.namespace
