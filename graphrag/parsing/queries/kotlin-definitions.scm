; Kotlin declarations (grammar tree-sitter-kotlin 1.1.0). The Python side decides the
; kind of a class_declaration (class / interface / enum class), the enclosing scope,
; and skips local declarations (a property inside a function is a local variable).

(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(companion_object) @definition.companion

(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor) @definition.constructor

(property_declaration (variable_declaration (identifier) @name)) @definition.field
; only `val`/`var` constructor parameters are properties
(class_parameter ["val" "var"] (identifier) @name) @definition.field
(enum_entry (identifier) @name) @definition.field
