;; Property declarations: `const val` string constants of the file (kotlin._string_constants).
(property_declaration) @decl
