; References of a Go file: calls (incl. route registrations) and imports.

(call_expression
  function: [(identifier) (selector_expression)]) @reference.call

(import_spec
  path: (_)) @reference.import
