; Declarations, bindings and references of a Rust file, in one query: the tree is
; walked once. The container of each declaration (an inline `mod`, an `impl` or
; `trait` block, a function) is worked out in Python from the captured nodes.

(mod_item name: (identifier)) @definition.module

(struct_item name: (type_identifier)) @definition.class

(union_item name: (type_identifier)) @definition.class

(enum_item name: (type_identifier)) @definition.enum

(trait_item name: (type_identifier)) @definition.trait

(impl_item type: (_)) @definition.impl

(function_item name: (identifier)) @definition.function

(function_signature_item name: (identifier)) @definition.function

(macro_definition name: (identifier)) @definition.macro

(use_declaration argument: (_)) @definition.import

(const_item name: (identifier)) @definition.constant

(static_item name: (identifier)) @definition.constant

; Bindings: typed locals for the resolver; every other name a pattern binds shadows
; outer names.
(let_declaration pattern: (_)) @definition.local

(for_expression pattern: (_)) @definition.range

(closure_parameters) @definition.binding

(match_arm pattern: (_) @definition.binding)

(let_condition pattern: (_) @definition.binding)

; Calls (incl. route registrations) and macro invocations.
(call_expression function: (_)) @reference.call

(macro_invocation macro: (_)) @reference.macro
