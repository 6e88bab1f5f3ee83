; References of a JavaScript (and JSX) file: calls, instantiations, imports (ES and CommonJS),
; re-exports and route registrations.

(call_expression
  function: (_)) @reference.call

(new_expression
  constructor: (_)) @reference.new

(import_statement) @reference.import

(export_statement
  source: (string)) @reference.reexport

; `const x = require('./x')`, `const {a, b} = require('./x')`, `const y = require('./x').y`
(variable_declarator
  value: [
    (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string)))
    (member_expression
      object: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string))))
  ]
  (#eq? @_require "require")) @reference.require

; `<receiver>.<name>(...)`: route registrations and mounts when a route framework of the
; language looks at `<name>` (checked in Python)
(call_expression
  function: (member_expression)) @reference.registration

; `export default <name>` / `module.exports = <name>`
(export_statement
  value: (identifier)) @reference.export_default

(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: (identifier)
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @reference.export_default
