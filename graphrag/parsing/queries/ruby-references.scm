; Calls (route declarations, requires and mixins among them), super calls and
; assignments of a Ruby file; the caller is found in Python.

(call) @reference.call
(super) @reference.super
(assignment) @assignment
(operator_assignment) @assignment
