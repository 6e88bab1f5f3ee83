; inherits: javascript-references
; References of a TypeScript/TSX file: those of JavaScript (the grammars share the nodes).
