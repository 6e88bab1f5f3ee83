; Calls, callable references and constructor delegation. The enclosing symbol
; (caller) is found in Python.

(call_expression) @reference.call
(callable_reference) @reference.ref
(navigation_expression "::") @reference.ref
(constructor_delegation_call) @reference.delegation
