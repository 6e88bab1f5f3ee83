; Java declarations. The Python side decides the enclosing scope (parent) of each
; capture and skips local/anonymous declarations.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor

; one match per declarator: `int a = 1, b;` declares two fields
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
(enum_constant name: (identifier) @name) @definition.field
; record components are the record's fields
(record_declaration
  parameters: (formal_parameters
    (formal_parameter name: (identifier) @name) @definition.field))
