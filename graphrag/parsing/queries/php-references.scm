; Calls, instantiations and typed assignments of a PHP file; the caller is found in Python.

(function_call_expression) @reference.call
(member_call_expression) @reference.member
(nullsafe_member_call_expression) @reference.member
(scoped_call_expression) @reference.scoped
(object_creation_expression) @reference.new
(assignment_expression) @assignment
(foreach_statement) @foreach
