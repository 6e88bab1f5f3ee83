; Declarations of a Ruby file; nesting is worked out in Python.

(class) @definition.type
(module) @definition.type
(singleton_class) @definition.type
(method) @definition.method
(singleton_method) @definition.method
