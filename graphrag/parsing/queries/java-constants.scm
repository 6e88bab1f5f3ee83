;; Field and constant declarations: string constants of the file (java._string_constants).
[(field_declaration) (constant_declaration)] @decl
