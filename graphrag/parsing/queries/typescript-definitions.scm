; inherits: ecmascript-definitions
; Declarations of a TypeScript/TSX file (compiled for both grammars) beyond the shared
; ones: types, signatures, typed fields, callbacks and namespaces.

(abstract_class_declaration
  name: (type_identifier)) @definition.class

(interface_declaration
  name: (type_identifier)) @definition.interface

(enum_declaration
  name: (identifier)) @definition.enum

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

; Callbacks (functions that are no symbol): their parameters type names in the enclosing
; symbol, declared or from the parameter type of the function they are passed to.
(arrow_function) @definition.callback
(function_expression) @definition.callback

; `namespace Money { export function cents() {} }`: an OBJECT holding its declarations
(internal_module
  name: (identifier)) @definition.namespace
