; Calls and handler references. The enclosing symbol (caller) is found in Python.

(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (_) @name) @reference.new
(method_reference) @reference.ref
(explicit_constructor_invocation constructor: (_) @name) @reference.delegation
