; Package declaration and imports (decoded in Python: static / wildcard forms).

(package_declaration [(identifier) (scoped_identifier)] @package)
(import_declaration) @import
