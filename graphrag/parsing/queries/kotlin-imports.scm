; Package header and imports (alias and wildcard decoded in Python).

(package_header (qualified_identifier) @package)
(import) @import
