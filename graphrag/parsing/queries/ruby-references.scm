; Calls (route declarations, requires and mixins among them), super calls and
; assignments of a Ruby file; the caller is found in Python.

(call) @reference.call
(super) @reference.super
(assignment) @assignment
(operator_assignment) @assignment

; Local names (parameters and assigned variables) and identifiers in positions where an
; undeclared one is a call of a method without arguments.

(method_parameters (identifier) @local)
(method_parameters (_ name: (identifier) @local))
(block_parameters (identifier) @local)
(block_parameters (_ name: (identifier) @local))
(destructured_parameter (identifier) @local)
(lambda_parameters (identifier) @local)
(lambda_parameters (_ name: (identifier) @local))
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(for pattern: (identifier) @local)
(exception_variable (identifier) @local)

(body_statement (identifier) @bare)
(block_body (identifier) @bare)
(interpolation (identifier) @bare)
(then (identifier) @bare)
(else (identifier) @bare)
(argument_list (identifier) @bare)
(parenthesized_statements (identifier) @bare)
(binary (identifier) @bare)
(assignment right: (identifier) @bare)
