; Variables declared inside function bodies (their type or initialiser is decoded in Python).

(property_declaration (variable_declaration (identifier) @name)) @local
