"""Tree helpers every extractor needs: error counting, node text, header normalising,
innermost-enclosing-scope lookups."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from graphrag.parsing.typetext import split_top_level

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_UNKNOWN = object()


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


# How much of a long text describes what it is about: a module's included Markdown, a
# header's leading comment (abseil's `raw_hash_set.h` opens with "An open-addressing
# hashtable with quadratic probing." and goes on for 7,000 characters of implementation
# notes, which drown that sentence for a search).
OPENING_CHARS = 2000


def opening(text: str, limit: int = OPENING_CHARS) -> str:
    """The first ``limit`` characters of ``text``, cut at the end of a line."""
    if len(text) <= limit:
        return text.strip()
    cut = text.rfind("\n", 0, limit)
    return text[:cut if cut > 0 else limit].strip()


def node_text(node: Node | None) -> str:
    """The node's source text ('' for None); invalid UTF-8 becomes U+FFFD."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


_OPEN_SPACE = re.compile(r"([(\[]) ")
_SPACE_CLOSE = re.compile(r",? ([)\]])")


def normalize(text: str, open_space: re.Pattern[str] = _OPEN_SPACE,
              space_close: re.Pattern[str] = _SPACE_CLOSE) -> str:
    """Collapse whitespace and tidy brackets so multi-line headers read as one line: the
    space after an opening bracket (``open_space``, group 1 kept) and before a closing one
    (``space_close``, likewise) goes."""
    text = " ".join(text.split())
    if " " not in text:
        return text
    return space_close.sub(r"\1", open_space.sub(r"\1", text))


def header(node: Node, body_fields: tuple[str, ...], limit: int = 300) -> str:
    """A declaration's text up to its body (the first of ``body_fields`` it has), one
    line, at most ``limit`` characters: ``def find(id: Int): Option[Item]``."""
    body = next((b for f in body_fields if (b := node.child_by_field_name(f)) is not None),
                None)
    end = body.start_byte if body is not None and body.start_byte > node.start_byte \
        else node.end_byte
    text = node.text[:end - node.start_byte].decode("utf-8", errors="replace")
    return normalize(text).rstrip("{= ").strip()[:limit]


def parse_recovering(parser: Parser, source: bytes, decl_start: re.Pattern[bytes]
                     ) -> tuple[Node, int]:
    """The root of a tree in which a bad top-level declaration hides nothing after it
    (:func:`recover`), and the number of errors of the file as written."""
    tree = parser.parse(source)
    return recover(parser, source, tree, decl_start).root_node, count_errors(tree.root_node)


def recover(parser: Parser, source: bytes, tree: Tree, decl_start: re.Pattern[bytes]
            ) -> Tree:
    """A tree in which one bad top-level declaration no longer hides the ones after it.

    Some grammars (tree-sitter-kotlin with syntax newer than it knows) wrap everything
    from a bad declaration to the end of the file in one top-level ERROR node. Such a
    region is cut at the lines where a top-level declaration starts (``decl_start``
    matched at column 0); each piece that does not parse on its own is blanked (spaces,
    newlines kept, so every byte offset and line stays where it was) and the file is
    parsed again. The returned tree is over the blanked source; nodes outside the blanked
    pieces have the original text, so callers keep using the original ``source`` for
    text and character offsets. Without such a region the tree is returned unchanged."""
    if not tree.root_node.has_error:
        return tree
    blank: list[tuple[int, int]] = []
    for node in tree.root_node.children:
        if node.type != "ERROR":
            continue
        cuts = [node.start_byte]
        for match in decl_start.finditer(source, node.start_byte + 1, node.end_byte):
            if match.start() > cuts[-1]:
                cuts.append(match.start())
        if len(cuts) < 2:
            continue  # one declaration: nothing after it to save
        cuts.append(node.end_byte)
        for start, end in zip(cuts, cuts[1:], strict=False):
            if parser.parse(source[start:end]).root_node.has_error:
                blank.append((start, end))
    if not blank:
        return tree
    data = bytearray(source)
    for start, end in blank:
        data[start:end] = bytes(b if b == 0x0A else 0x20 for b in data[start:end])
    return parser.parse(bytes(data))


def decl_starts(keywords: str) -> re.Pattern[bytes]:
    """Lines starting (at column 0) with an annotation or one of ``keywords``."""
    return re.compile(rb"(?m)^(?:@|(?:" + keywords.replace(" ", "|").encode() + rb")\b)")


_CONTAINERS = re.compile(
    r"^(?:\w+\.)*(?:list|List|Sequence|MutableSequence|Iterable|Iterator|Collection|"
    r"set|Set|frozenset|FrozenSet|AbstractSet|MutableSet|tuple|Tuple|Generator|"
    r"AsyncIterable|AsyncIterator|Array|ReadonlyArray|ArrayList|LinkedList|HashSet|"
    r"IEnumerable|IList|ICollection|IReadOnlyList|IReadOnlyCollection|ISet|"
    r"IAsyncEnumerable|ImmutableArray)"
    r"[\[<](.*)[\]>]$")
_WRAPPERS = ("Optional[", "typing.Optional[", "t.Optional[")


def _unwrapped(text: str) -> str:
    """A type as written without quotes, ``Optional[...]`` and the null members of a
    union (``User | None`` -> ``User``)."""
    t = text.strip().strip("'\"").strip()
    for wrapper in _WRAPPERS:
        if t.startswith(wrapper) and t.endswith("]"):
            t = t[len(wrapper):-1].strip()
    if "|" in t:
        t = next((p.strip() for p in split_top_level(t, "|")
                  if p.strip() not in ("None", "null", "undefined")), "")
    return t


def element_type(text: str | None) -> str | None:
    """Element class of an annotated collection as written: ``list[User]``,
    ``t.Sequence["User"]``, ``Optional[Iterable[User]]``, ``tuple[User, ...]``,
    ``List<User>``, ``User[]``, Go ``[]*User`` -> ``User``; None for anything else (``dict``,
    ``str``)."""
    if not text:
        return None
    t = _unwrapped(text)
    if t.endswith("[]"):
        inner = t[:-2].strip()
        return inner if re.fullmatch(r"[\w.$]+", inner) else None
    go_slice = re.fullmatch(r"\[\d*\]\*?([\w.]+)", t)  # Go `[]*User`, `[4]User`
    if go_slice:
        return go_slice.group(1)
    cpp = _CPP_CONTAINERS.match(t)
    if cpp:  # the item type as written: `std::unique_ptr<Shape>` is reduced by C++'s prepass
        return split_top_level(cpp.group(1), ",")[0].strip() or None
    match = _CONTAINERS.match(t)
    if not match:
        return None
    first = split_top_level(match.group(1), ",")[0].strip().strip("'\"").strip()
    first = first.split("[", 1)[0].split("<", 1)[0].strip()
    return first if re.fullmatch(r"[\w.$]+", first) else None


# C++ sequences (`const std::vector<T>&` as declared): their items are T.
_CPP_CONTAINERS = re.compile(
    r"^(?:const\s+)?(?:std::)?(?:vector|deque|list|forward_list|set|multiset|unordered_set|"
    r"unordered_multiset|span|array|initializer_list)\s*<(.*)>\s*[&*]*$")
_MAPPINGS = re.compile(
    r"^(?:\w+\.)*(?:dict|Dict|Mapping|MutableMapping|OrderedDict|DefaultDict|defaultdict|"
    r"ChainMap|Map|HashMap|TreeMap|LinkedHashMap|ConcurrentHashMap|SortedMap|NavigableMap|"
    r"MutableMap|ReadonlyMap|WeakMap|Record|Dictionary|IDictionary|IReadOnlyDictionary|"
    r"ConcurrentDictionary|SortedDictionary|ImmutableDictionary)[\[<](.*)[\]>]$")


def item_type(text: str | None) -> str | None:
    """Class of one item read by key or index from an annotated container as written:
    a mapping's value (``Dict[str, Option]``, ``Map<String, User>``, ``Record<string,
    User>``, Go ``map[string]*User`` -> the value class), else a sequence's element
    (:func:`element_type`: ``list[User]``, ``User[]``); None for anything else."""
    if not text:
        return None
    t = _unwrapped(text)
    go_map = re.fullmatch(r"map\[[^\]]+\]\*?([\w.]+)", t)
    if go_map:
        return go_map.group(1)
    match = _MAPPINGS.match(t)
    if not match:
        return element_type(t)
    args = split_top_level(match.group(1), ",")
    if len(args) != 2:
        return None
    raw = args[1].strip().strip("'\"").strip()
    if element_type(raw) is not None or _MAPPINGS.match(raw):
        return None  # a collection of items, not an item
    value = raw.split("[", 1)[0].split("<", 1)[0].strip()
    return value if re.fullmatch(r"[\w.$]+", value) else None


# Item types that are never a repository class: a container of them keeps no type text.
_BUILTIN_ITEMS = frozenset({
    "String", "Integer", "Long", "Double", "Float", "Short", "Byte", "Character", "Boolean",
    "Object", "Number", "CharSequence", "string", "number", "boolean", "bigint", "symbol",
    "any", "unknown", "object", "never", "str", "int", "float", "bool", "bytes", "Any", "Int",
    "Char", "Unit", "Nothing", "decimal"})


def keeps_items(text: str | None) -> bool:
    """Whether a declared type is a container whose items may be a repository class
    (``Map<String, User>``, not ``Map<String, Integer>``): the extractors then keep the
    type as written for the resolver instead of its plain name."""
    item = item_type(text)
    return item is not None and item.rsplit(".", 1)[-1] not in _BUILTIN_ITEMS


class ScopeIndex(dict[K, V], Generic[K, V]):
    """The scopes an extractor registered (``key(node) -> value``), plus the lookup of the
    innermost registered scope strictly around any node.

    ``Node.parent`` descends from the root, so its cost is the node's depth, and walking
    parents for every call was cubic on deeply nested input. Here the answer is kept for
    every node a walk passes, until a new scope is registered: each node is walked once,
    so the lookups of a whole file are linear in its tree."""

    def __init__(self, key: Callable[[Node], K]) -> None:
        super().__init__()
        self._key = key
        self._answers: dict[int, K | None] = {}  # node id -> key of its enclosing scope
        self._size = 0

    def enclosing(self, node: Node) -> V | None:
        """Value of the innermost registered ancestor of ``node``; None at file level."""
        if len(self) != self._size:  # a new scope can sit between a node and its answer
            self._answers.clear()
            self._size = len(self)
        path: list[int] = []
        answer: K | None = None
        current = node.parent
        while current is not None:
            key = self._key(current)
            if key in self:
                answer = key
                break
            known = self._answers.get(current.id, _UNKNOWN)
            if known is not _UNKNOWN:
                answer = known  # type: ignore[assignment]
                break
            path.append(current.id)
            current = current.parent
        for node_id in path:
            self._answers[node_id] = answer
        return self[answer] if answer is not None else None


def has_ancestor(node: Node, types: tuple[str, ...]) -> bool:
    """Whether a node of one of ``types`` encloses ``node``."""
    cur = node.parent
    while cur is not None:
        if cur.type in types:
            return True
        cur = cur.parent
    return False


def in_order(nodes: list[Node]) -> list[Node]:
    """Nodes in source order, an enclosing node before the nodes inside it."""
    return sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))


def node_id(node: Node) -> int:
    """Key of scopes registered by node id."""
    return node.id


def outermost_captures(query: Query, root: Node) -> list[Node]:
    """Nodes captured by ``query`` under ``root``, in source order, without those inside
    an earlier one: what a walk that stops at each such node would visit, found by the
    query engine instead of a Python walk over every node of the file."""
    found = [node for nodes in QueryCursor(query).captures(root).values() for node in nodes]
    found.sort(key=lambda n: (n.start_byte, -n.end_byte))
    out: list[Node] = []
    end = -1
    for node in found:
        if node.start_byte < end or (out and node.start_byte == out[-1].start_byte):
            continue  # inside (or the same span as) the previous outermost node
        out.append(node)
        end = node.end_byte
    return out
