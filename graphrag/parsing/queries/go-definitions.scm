; Declarations of a Go file. Struct fields and interface methods are read from the
; captured type_spec in Python (they need the enclosing type's fqn).

(function_declaration
  name: (identifier)) @definition.function

(method_declaration
  name: (field_identifier)) @definition.method

(type_spec
  name: (type_identifier)) @definition.type

; Variable declarations give local (and package-level) variable types.
(short_var_declaration) @definition.local

(var_spec) @definition.local

; `for _, v := range xs`: v is an element of xs.
(range_clause) @definition.range
