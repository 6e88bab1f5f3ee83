"""Tree helpers every extractor needs: error counting, node text, header normalising."""

from __future__ import annotations

import re

from tree_sitter import Node


def count_errors(root: Node) -> int:
    """Number of ERROR and MISSING nodes (only subtrees with errors are visited)."""
    if not root.has_error:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


def node_text(node: Node | None) -> str:
    """The node's source text ('' for None); invalid UTF-8 becomes U+FFFD."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def normalize(text: str) -> str:
    """Collapse whitespace and tidy brackets so multi-line headers read as one line."""
    text = " ".join(text.split())
    text = re.sub(r"([(\[]) ", r"\1", text)
    return re.sub(r",? ([)\]])", r"\1", text)
