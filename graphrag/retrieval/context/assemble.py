"""Context blocks by member, not by chunk.

A code node is one block: its whole implementation (every chunk re-joined in source
order, with the bodies its chunks elide put back -- :mod:`graphrag.retrieval.context.members`),
fenced with its language, its doc comment once (left out when the code already holds it,
as a Python docstring), the other overloads with their signatures. A seed also carries
its relation lists, each once: calls, callers split into code and tests (tests counted
unless asked for), overrides, subclasses, mentions. A class seed shows its signature,
bases, doc, constructor, and its public members with signatures and one-line summaries;
the bodies of its members follow as blocks of their own, most central first.

A document page or section keeps one block per chunk (its segment ids are citable one by
one). Every block but a document chunk has a short form without its code, used when the
whole does not fit the budget.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection

from graphrag.graph import store as graph_store
from graphrag.graph.dispatch import call_neighbours
from graphrag.graph.service_links import http_neighbours
from graphrag.kinds import CALLABLE_KINDS
from graphrag.parsing import registry
from graphrag.parsing.pathroles import is_example_path
from graphrag.parsing.testpaths import is_test_path
from graphrag.pipeline.graph_info import Neighbour, Neighbours, load_neighbours
from graphrag.pipeline.text import clean_doc_comment
from graphrag.retrieval.context import store
from graphrag.retrieval.context.members import CodeChunk, fence, implementation, merge_line_maps
from graphrag.retrieval.context.ranking import Block
from graphrag.retrieval.documents.segments import segment_ids

TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "OBJECT"})
DOC_UNIT_KINDS = frozenset({"PAGE", "SECTION"})
# Containers link to everything inside them: as neighbours they add nothing readable.
HUB_KINDS = frozenset({"REPOSITORY", "FILE", "MODULE", "PACKAGE", "DOCUMENT"})
RELATION_KINDS = ("CALLS", "EXTENDS", "IMPLEMENTS", "OVERRIDES", "MENTIONS")
MAX_LISTED = 20  # entries per relation list; the rest is counted

@dataclass
class NodeData:
    """A ranked node with what its block needs."""

    row: Any
    chunks: list[Any] = field(default_factory=list)
    code: str | None = None  # whole implementation, outdented
    missing_lines: int = 0

    @property
    def code_chunks(self) -> list[Any]:
        return [c for c in self.chunks if c.source == "code"]

    @property
    def doc_chunks(self) -> list[Any]:
        return [c for c in self.chunks if c.source == "doc"]

    @property
    def meta(self) -> dict[str, Any]:
        """The node's language facts (empty when it has none)."""
        return self.row.meta or {}

    @property
    def doc(self) -> str:
        """The node's doc comment without its comment markers."""
        return clean_doc_comment(self.row.doc_comment)

    @property
    def seg(self) -> str | None:
        """The node's block id: its code chunk's plan id (``{id}:code:snippet``, for a
        split member the common prefix of its parts), else its first chunk's."""
        code = self.code_chunks
        if len(code) == 1:
            return code[0].plan_id
        if code:
            return f"{self.row.id}:code:snippet"
        return self.chunks[0].plan_id if self.chunks else None


def _elide(value: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in (value or []))


def _code_chunk(r: Any) -> CodeChunk | None:
    if r.span_start is None or r.content_raw is None:
        return None
    return CodeChunk(int(r.span_start), int(r.span_end), r.content_raw, _elide(r.elide))


def load_nodes(conn: Connection, app_id: int, ids: Sequence[int]) -> dict[int, NodeData]:
    """Rows, chunks and re-joined implementations of the given nodes."""
    nodes = {r.id: NodeData(r) for r in store.block_node_rows(conn, ids)}
    for r in store.block_chunk_rows(conn, app_id, ids):
        if r.node_id in nodes:
            nodes[r.node_id].chunks.append(r)
    with_code = [n for n in nodes.values() if n.code_chunks and n.row.line_start is not None]
    nested = [n.row.id for n in with_code if any(c.elide for c in n.code_chunks)]
    inner: dict[int, list[CodeChunk]] = defaultdict(list)
    if nested:
        for r in store.inner_chunk_rows(conn, nested):
            chunk = _code_chunk(r)
            if chunk is not None:
                inner[r.owner_id].append(chunk)
    for n in with_code:
        own = [c for c in map(_code_chunk, n.code_chunks) if c is not None]
        lines = merge_line_maps(own + inner.get(n.row.id, []))
        if lines:
            start = max(n.row.line_start, min(lines))
            end = min(n.row.line_end or max(lines), max(lines))
            n.code, n.missing_lines = implementation(start, end, lines)
    for n in nodes.values():
        if n.code is None and n.code_chunks:
            n.code = joined_content(n.code_chunks)
    return nodes


def joined_content(chunks: Sequence[Any]) -> str | None:
    """Without the raw lines (chunks written by another tool): the chunks' normalised
    text in order, each part once (a part inside an earlier one's lines is skipped)."""
    parts: list[str] = []
    covered: list[tuple[int, int]] = []
    for c in sorted(chunks, key=lambda c: (c.span_start or 0, -(c.span_end or 0))):
        if c.span_start is not None and any(a <= c.span_start and c.span_end <= b
                                            for a, b in covered):
            continue
        if c.span_start is not None:
            covered.append((c.span_start, c.span_end))
        if (c.content or "").strip():
            parts.append(c.content.strip("\n"))
    return "\n".join(parts) or None


def load_members(conn: Connection, class_ids: Sequence[int]) -> dict[int, list[Any]]:
    members: dict[int, list[Any]] = defaultdict(list)
    if class_ids:
        for r in store.member_rows(conn, class_ids):
            members[r.parent_id].append(r)
    return members


# ---------------------------------------------------------------- text pieces
def one_line(value: str | None) -> str:
    return " ".join((value or "").split())


def first_sentence(doc: str) -> str:
    para = doc.strip().split("\n\n", 1)[0]
    flat = one_line(para)
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    return match.group(1) if match else flat


def _code_span(value: str) -> str:
    """``value`` as inline code, with a delimiter longer than any backtick run in it."""
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def doc_in_code(doc: str, code: str | None) -> bool:
    """Whether the code already shows the doc comment (a Python docstring, or a comment
    inside the member's lines)."""
    if not doc or not code:
        return False
    first = one_line(doc.splitlines()[0])
    return bool(first) and first in one_line(code)


def _bullet(n: Neighbour) -> str:
    where = f" ({n.location})" if n.location else ""
    via = f" via {_code_span(n.via)}" if n.via else ""
    return f"- {_code_span(n.label)}{where}{via}"


def _unique(neighbours: list[Neighbour]) -> list[Neighbour]:
    return list({n.node_id: n for n in neighbours}.values())


def relation_list(heading: str, neighbours: list[Neighbour]) -> str | None:
    unique = _unique(neighbours)
    if not unique:
        return None
    lines = [_bullet(n) for n in unique[:MAX_LISTED]]
    if len(unique) > MAX_LISTED:
        lines.append(f"- ... and {len(unique) - MAX_LISTED} more")
    return f"**{heading}**\n\n" + "\n".join(lines)


def test_or_example(path: str | None) -> bool:
    """Whether the path holds tests or examples: counted in context, not shown."""
    return is_test_path(path) or is_example_path(path)


def callers_list(callers: list[Neighbour], with_tests: bool) -> list[str]:
    """Callers in code listed; callers in tests and examples counted (listed when asked
    for)."""
    unique = _unique(callers)
    code = [n for n in unique if not test_or_example(n.file_path)]
    tests = [n for n in unique if test_or_example(n.file_path)]
    if with_tests:
        return [s for s in (relation_list("Called by", code),
                            relation_list("Called by tests and examples", tests)) if s]
    if not tests:
        return [s for s in (relation_list("Called by", code),) if s]
    lines = [_bullet(n) for n in code[:MAX_LISTED]]
    if len(code) > MAX_LISTED:
        lines.append(f"- ... and {len(code) - MAX_LISTED} more")
    lines.append(f"- {len(tests)} callers in tests and examples (not listed)")
    return ["**Called by**\n\n" + "\n".join(lines)]


def _entry(n: Neighbour) -> dict[str, Any]:
    return {"fqn": n.fqn or n.label, "kind": n.kind, "file_path": n.file_path,
            "line_start": n.line_start, "via": n.via}


def _entries(neighbours: list[Neighbour]) -> list[dict[str, Any]]:
    return [_entry(n) for n in _unique(neighbours)[:MAX_LISTED]]


def relation_fields(nb: Neighbours, with_tests: bool) -> tuple[tuple[str, Any], ...]:
    """The relation lists of :func:`relation_sections` as data (the JSON format's
    ``relations``): the same entries, callers in tests counted unless asked for."""
    callers = _unique(nb.incoming("CALLS"))
    tests = [n for n in callers if test_or_example(n.file_path)]
    code = [n for n in callers if not test_or_example(n.file_path)]
    fields: list[tuple[str, Any]] = [
        ("calls", _entries(nb.outgoing("CALLS"))),
        ("http_requests", _entries(nb.outgoing("HTTP"))),
        ("http_callers", _entries(nb.incoming("HTTP"))),
        ("callers", _entries(code + tests if with_tests else code)),
        ("callers_in_tests", 0 if with_tests else len(tests)),
        ("overrides", _entries(nb.outgoing("OVERRIDES"))),
        ("overridden_by", _entries(nb.incoming("OVERRIDES"))),
        ("mentioned_in", _entries(nb.incoming("MENTIONS"))),
    ]
    return tuple((k, v) for k, v in fields if v)


def relation_sections(nb: Neighbours, with_tests: bool) -> list[str]:
    sections: list[str | None] = [
        relation_list("Calls", nb.outgoing("CALLS")),
        relation_list("Requests over HTTP", nb.outgoing("HTTP")),
        *callers_list(nb.incoming("CALLS"), with_tests),
        relation_list("Called over HTTP by", nb.incoming("HTTP")),
        relation_list("Overrides", nb.outgoing("OVERRIDES")),
        relation_list("Overridden by", nb.incoming("OVERRIDES")),
        relation_list("Mentioned in", nb.incoming("MENTIONS")),
    ]
    return [s for s in sections if s]


def _heritage(nb: Neighbours, meta: dict[str, Any], with_tests: bool = False) -> list[str]:
    bases = _unique(nb.outgoing("EXTENDS") + nb.outgoing("IMPLEMENTS"))
    out = []
    if bases:
        out.append("Bases: " + ", ".join(_code_span(n.label) for n in bases))
    elif meta.get("bases"):
        out.append("Bases: " + ", ".join(_code_span(str(b)) for b in meta["bases"]))
    every = _unique(nb.incoming("EXTENDS") + nb.incoming("IMPLEMENTS"))
    subs = [n for n in every if not test_or_example(n.file_path)]
    tests = [n for n in every if test_or_example(n.file_path)]
    if with_tests:
        subs, tests = subs + tests, []
    if subs:
        shown = ", ".join(_code_span(n.label) for n in subs[:MAX_LISTED])
        more = f" and {len(subs) - MAX_LISTED} more" if len(subs) > MAX_LISTED else ""
        out.append(f"Subclasses: {shown}{more}")
    if tests:  # counted apart: test doubles are no part of the hierarchy users extend
        out.append(f"Subclasses in tests and examples: {len(tests)} (not listed)")
    return out


def _overloads(meta: dict[str, Any]) -> str | None:
    sigs = [one_line(s) for s in meta.get("overloads") or [] if s]
    if not sigs:
        return None
    return "**Overloads**\n\n" + "\n".join(f"- {_code_span(s)}" for s in sigs)


def _summary(node: NodeData) -> str | None:
    """An LLM summary (a structural one only repeats the code and the relation lists)."""
    for c in node.code_chunks:
        if c.summary_method == "llm" and (c.explain_md or "").strip():
            return "Summary: " + c.explain_md.strip()
    return None


def _public(member: Any) -> bool:
    name = member.name or ""
    spec = registry.find(member.lang)
    if spec is not None and spec.private_names == "underscore":
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
    return not re.search(r"\bprivate\b", member.signature or "") and not name.startswith("#")


def members_list(members: list[Any]) -> str | None:
    """Public methods (and nested types) with signatures and one-line summaries; fields
    by name on one line (their assignments stand in the constructor)."""
    lines = []
    fields = []
    for m in members:
        if m.kind == "CONSTRUCTOR" or not _public(m):
            continue
        if m.kind == "FIELD":
            fields.append(_code_span(m.name or m.fqn or "?"))
            continue
        label = one_line(m.signature) or m.name or m.fqn
        doc = first_sentence(clean_doc_comment(m.doc_comment))
        lines.append(f"- {_code_span(label)} ({m.kind.lower()})" + (f": {doc}" if doc else ""))
    parts = []
    if fields:
        parts.append("Fields: " + ", ".join(dict.fromkeys(fields)))
    if lines:
        parts.append("**Members**\n\n" + "\n".join(lines))
    return "\n\n".join(parts) or None


# ---------------------------------------------------------------- blocks
def _block(node: NodeData, seg: str, text_: str, short: str | None, score: float,
           seed: bool, relations: tuple[tuple[str, Any], ...] = ()) -> Block:
    r = node.row
    return Block(seg=seg, node_id=r.id, fqn=r.fqn, kind=r.kind, file_path=r.file_path,
                 line_start=r.line_start, line_end=r.line_end, page_number=r.page_number,
                 source="code" if node.code_chunks else "doc", text=text_, score=score,
                 seed=seed, lang=r.lang, short=short,
                 chunks=tuple(c.plan_id for c in node.chunks), relations=relations)


def _join(parts: Sequence[str | None]) -> str:
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _left_out_note(node: NodeData) -> str:
    return (f"(code not shown for the budget: {node.row.line_end - node.row.line_start + 1}"
            " lines)" if node.row.line_start and node.row.line_end else
            "(code not shown for the budget)")


def member_block(node: NodeData, score: float, seed: bool, nb: Neighbours | None,
                 with_tests: bool) -> Block | None:
    """A function, method, constructor, endpoint or field as one block."""
    r = node.row
    seg = node.seg
    if seg is None:
        return None
    meta, doc = node.meta, node.doc
    signature = one_line(r.signature)
    show_doc = doc if not doc_in_code(doc, node.code) else None
    lists = relation_sections(nb, with_tests) if (seed and nb is not None) else []
    fields = relation_fields(nb, with_tests) if (seed and nb is not None) else ()
    code = fence(node.code, r.lang) if node.code else None
    sig_line = _code_span(signature) if signature and not code else None
    full = _join([_overloads(meta) if seed else None, sig_line, show_doc if seed else (
        first_paragraph(show_doc) if show_doc else None), code, _summary(node), *lists])
    if not code:
        return _block(node, seg, full, None, score, seed, fields)
    if seed:
        short = _join([_overloads(meta), _code_span(signature) if signature else None,
                       first_paragraph(doc) if doc else None, _left_out_note(node)])
    else:  # a neighbour in brief: what it is and what it does
        short = _join([_code_span(signature) if signature else None,
                       first_sentence(doc) if doc else None])
    return _block(node, seg, full, short or None, score, seed, fields)


def first_paragraph(doc: str | None) -> str:
    return (doc or "").strip().split("\n\n", 1)[0]


def type_block(node: NodeData, score: float, seed: bool, nb: Neighbours | None,
               members: list[Any], ctor_code: list[NodeData], with_tests: bool,
               ) -> Block | None:
    """A class, interface, enum or object: signature, bases and subclasses, doc; for a
    seed also its constructor and the list of its public members."""
    r = node.row
    seg = node.seg
    if seg is None:
        return None
    meta, doc = node.meta, node.doc
    head = [_code_span(one_line(r.signature) or r.name or r.fqn or "")]
    heritage = _heritage(nb, meta, with_tests) if nb is not None else []
    if not seed:
        return _block(node, seg, _join([*head, *heritage, first_paragraph(doc)]), None,
                      score, seed)
    ctor = [f"**Constructor**\n\n{fence(c.code, c.row.lang)}" for c in ctor_code if c.code]
    lists = [s for s in ([relation_list("Mentioned in", nb.incoming("MENTIONS"))]
                         if nb is not None else []) if s]
    full = _join([*head, *heritage, doc, *ctor, members_list(members), *lists])
    short = _join([*head, *heritage, first_paragraph(doc), members_list(members)])
    return _block(node, seg, full, short if short != full else None, score, seed)


def document_blocks(conn: Connection, node: NodeData, score: float, seed: bool) -> list[Block]:
    """One block per chunk of a page or section (segment ids stay citable one by one)."""
    segments = segment_ids(conn, [c.id for c in node.chunks])
    r = node.row
    out = []
    for c in node.chunks:
        body = (c.content or "").strip()
        if not body:
            continue
        out.append(Block(seg=segments.get(c.id, c.plan_id), node_id=r.id, fqn=r.fqn,
                         kind=r.kind, file_path=r.file_path,
                         line_start=c.span_start if c.span_start is not None else r.line_start,
                         line_end=c.span_end if c.span_start is not None else r.line_end,
                         page_number=c.page_number, source=c.source, text=body, score=score,
                         seed=seed, chunks=(c.plan_id,)))
    return out


def build_blocks(conn: Connection, app_id: int, ranked: Sequence[tuple[int, float]],
                 seeds: Sequence[int], with_tests: bool = False,
                 visible: Collection[str] | None = None) -> list[Block]:
    """The blocks of the ranked nodes: seeds first, a class seed's members right after
    it (most central first), then the rest in rank order; each node once. A seed's
    HTTP links reach into the applications ``visible`` (None: any)."""
    seed_set = set(seeds)
    class_seeds = store.ids_of_kinds(conn, seeds, list(TYPE_KINDS))
    with_members = load_members(conn, class_seeds)
    order = _order(ranked, seed_set, with_members)
    nodes = load_nodes(conn, app_id, [n for n, _ in order] + [
        m.id for ms in with_members.values() for m in ms if m.kind == "CONSTRUCTOR"])
    relations = load_relations(conn, app_id, [n for n in seeds if n in nodes], visible)
    shown: set[int] = inside_members(nodes) - seed_set
    blocks: list[Block] = []
    for node_id, s in order:
        node = nodes.get(node_id)
        if node is None or node_id in shown:
            continue
        seed = node_id in seed_set
        kind = node.row.kind
        if kind in HUB_KINDS and not seed:
            continue
        shown.add(node_id)
        if kind in DOC_UNIT_KINDS or kind == "DOCUMENT":
            blocks.extend(document_blocks(conn, node, s, seed))
            continue
        nb = relations.get(node_id)
        if kind in TYPE_KINDS:
            members = with_members.get(node_id, []) if seed else []
            ctors = [nodes[m.id] for m in members if m.kind == "CONSTRUCTOR" and m.id in nodes]
            shown.update(c.row.id for c in ctors if c.code)
            block = type_block(node, s, seed, nb, members, ctors, with_tests)
        else:
            block = member_block(node, s, seed, nb, with_tests)
            if block is not None and node.row.parent_id in with_members:
                block = replace(block, short=None)  # the Members list already has it
        if block is not None and block.text:
            blocks.append(block)
    return blocks


def load_relations(conn: Connection, app_id: int, node_ids: Sequence[int],
                   visible: Collection[str] | None = None) -> dict[int, Neighbours]:
    """The relation lists' edges of the nodes; calls with those through dispatch
    (:mod:`graphrag.graph.dispatch`: callers through a base method, implementations of
    an interface method called), callers in module code as the function or class at the
    call's line (:func:`callers_as_functions`); HTTP links to and from the services of
    the applications ``visible`` (:func:`graphrag.graph.service_links.http_neighbours`)."""
    relations = load_neighbours(conn, node_ids, [k for k in RELATION_KINDS if k != "CALLS"])
    for n in callers_as_functions(conn, app_id, call_neighbours(conn, node_ids)):
        nb = relations[n.this_id]
        (nb.out if n.outgoing else nb.in_).setdefault("CALLS", []).append(n)
    for n in http_neighbours(conn, node_ids, visible):
        nb = relations[n.this_id]
        (nb.out if n.outgoing else nb.in_).setdefault("HTTP", []).append(n)
    return relations


def callers_as_functions(conn: Connection, app_id: int, calls: list[Neighbour]
                         ) -> list[Neighbour]:
    """Callers that are a file (a call in module code: a decorator, a registration) as
    the innermost function or class whose lines hold the call (a decorator's line is its
    function's), one per such node; a call outside any stays the file."""
    def at_file(n: Neighbour) -> bool:
        return not n.outgoing and n.kind in HUB_KINDS and bool(n.file_path and n.lines)

    sites = sorted({(n.file_path, line) for n in calls if at_file(n) for line in n.lines})
    found = graph_store.innermost_at(conn, app_id, sites, [*CALLABLE_KINDS, *TYPE_KINDS])
    out: list[Neighbour] = []
    for n in calls:
        hits = [found[(n.file_path, line)] for line in n.lines
                if (n.file_path, line) in found] if at_file(n) else []
        if not hits:
            out.append(n)
            continue
        for hit in {h.id: h for h in hits}.values():
            out.append(n._replace(node_id=hit.id, kind=hit.kind, name=hit.name, fqn=hit.fqn,
                                  line_start=hit.line_start, line_end=hit.line_end))
    return out


def inside_members(nodes: dict[int, NodeData]) -> set[int]:
    """Nodes whose code stands whole inside another loaded member's implementation (a
    nested function in its function): shown there, not again."""
    spans = [(n.row.file_path, n.row.line_start, n.row.line_end, n.row.id)
             for n in nodes.values() if n.code and n.row.kind not in TYPE_KINDS
             and n.row.kind not in HUB_KINDS and n.row.line_start is not None]
    inside: set[int] = set()
    for n in nodes.values():
        r = n.row
        if r.line_start is None or r.kind in HUB_KINDS:
            continue
        for path, start, end, owner in spans:
            if owner != r.id and path == r.file_path and start <= r.line_start \
                    and r.line_end <= end and (start, end) != (r.line_start, r.line_end):
                inside.add(r.id)
                break
    return inside


def _order(ranked: Sequence[tuple[int, float]], seeds: set[int],
           members: dict[int, list[Any]]) -> list[tuple[int, float]]:
    score = dict(ranked)
    out: list[tuple[int, float]] = []
    taken: set[int] = set()
    for node_id, s in ranked:
        if node_id not in seeds:
            continue
        out.append((node_id, s))
        taken.add(node_id)
        kids = [m.id for m in members.get(node_id, [])]
        for kid in sorted(kids, key=lambda k: (-score.get(k, 0.0), k)):
            if kid not in taken:
                out.append((kid, score.get(kid, 0.0)))
                taken.add(kid)
    out.extend((n, s) for n, s in ranked if n not in taken)
    return out
