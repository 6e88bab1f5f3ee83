; Typed names inside function bodies (locals, loop variables, resources, catch params;
; @param: parameters, kept where they belong to a lambda or an anonymous class's method).

(local_variable_declaration
  type: (_) @type
  declarator: (variable_declarator
    name: (identifier) @name
    value: (_)? @value)) @local
(enhanced_for_statement type: (_) @type name: (identifier) @name) @local
(resource type: (_) @type name: (identifier) @name value: (_)? @value) @local
(catch_formal_parameter (catch_type (_) @type) name: (identifier) @name) @local
(formal_parameter type: (_) @type name: (identifier) @name) @param
