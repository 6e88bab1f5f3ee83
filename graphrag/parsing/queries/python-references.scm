; References of a Python file: calls and imports.

(call
  function: [(identifier) (attribute)]) @reference.call

; a decorator applied as a call: `app.get("/x")(handler)`, `lru_cache(maxsize=1)(load)`
(call
  function: (call)) @reference.call

(import_statement) @reference.import

(import_from_statement) @reference.import
