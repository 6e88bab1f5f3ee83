; Declarations of a Python file. Scoping (which class/function encloses what) is worked
; out in Python from the tree, so the patterns capture whole nodes only.

(class_definition
  name: (identifier)) @definition.class

(function_definition
  name: (identifier)) @definition.function

; Assignments give class fields (class-level and self.x), local and module variable types
; and router/blueprint prefixes.
(assignment
  left: [(identifier) (attribute)]) @definition.assignment

; Local flow: `with X(...) as y` and `for y in xs` type their targets.
(with_item
  value: (as_pattern)) @definition.with
(for_statement
  left: (identifier)) @definition.for
