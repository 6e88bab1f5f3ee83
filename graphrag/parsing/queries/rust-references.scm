; References of a Rust file: calls (incl. route registrations) and macro invocations.

(call_expression function: (_)) @reference.call

(macro_invocation macro: (_)) @reference.macro
