; References of a Python file: calls and imports.

(call
  function: [(identifier) (attribute)]) @reference.call

(import_statement) @reference.import

(import_from_statement) @reference.import
