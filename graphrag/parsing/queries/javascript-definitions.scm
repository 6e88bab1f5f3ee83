; inherits: ecmascript-definitions
; Declarations of a JavaScript (and JSX) file beyond the shared ones.

(field_definition
  property: (_)) @definition.field
