; Declarations of a PHP file; scopes and namespaces are worked out in Python.

(namespace_definition) @namespace
(namespace_use_declaration) @import
(class_declaration) @definition.class
(interface_declaration) @definition.interface
(trait_declaration) @definition.trait
(enum_declaration) @definition.enum
(function_definition) @definition.function
(method_declaration) @definition.method
(property_declaration) @definition.property
(const_declaration) @definition.constant
(enum_case) @definition.case
