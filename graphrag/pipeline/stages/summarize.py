"""summarize: a short Markdown explanation of a chunk into ``explain_md``.

Two :class:`Summarizer` implementations:

- :class:`StructuralSummarizer` (default): offline and deterministic, built from the graph:
  what the node is, its parameters and return type (``nodes.meta``), the endpoint route,
  what it calls and what calls it (by name, from CALLS edges), and the words of its
  identifier (camelCase / snake_case split). ``explain_quality = {"method": "structural"}``.
- :class:`OpenAICompatibleSummarizer`: when ``GRAPHRAG_LLM_BASE_URL`` is set, an
  OpenAI-compatible chat-completions server writes the summary, with bounded concurrency,
  a timeout and retries (:mod:`graphrag.pipeline.llm`). Answers are cached in the
  ``summary_cache`` table under a key of (prompt version, model, fqn, content hash), so
  unchanged code is never summarized twice.
  ``explain_quality = {"method": "llm", "model": <model>}``.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.errors import EnvironmentProblem
from graphrag.kinds import CODE_CHUNKS, SUMMARIZE
from graphrag.pipeline import store
from graphrag.pipeline.graph_info import Neighbour, load_neighbours
from graphrag.pipeline.llm import ChatClient
from graphrag.pipeline.model import BatchStage, StageContext, StageResult, WorkItem, record_failure
from graphrag.pipeline.text import sha256_hex, words_of

MAX_NAMES = 12
MAX_CODE_CHARS = 12_000
PROMPT_VERSION = "summarize-v1"
DEFAULT_CONCURRENCY = 4
_QUALIFIED_KINDS = frozenset({"METHOD", "CONSTRUCTOR", "FIELD", "ENDPOINT"})


@dataclass(frozen=True)
class SummaryRequest:
    """Everything a summarizer may use about one chunk."""

    chunk_id: int
    kind: str
    name: str | None
    fqn: str | None
    lang: str | None
    file_path: str | None
    lines: tuple[int, int] | None
    signature: str | None
    meta: dict[str, Any]
    parent_kind: str | None
    parent_fqn: str | None
    code: str
    content_hash: str
    calls: tuple[str, ...] = ()
    called_by: tuple[str, ...] = ()
    extends: tuple[str, ...] = ()
    implements: tuple[str, ...] = ()


class Summarizer(ABC):
    """Turns requests into Markdown summaries; one result (text or exception) per request."""

    @abstractmethod
    def quality(self) -> dict[str, Any]:
        """The ``explain_quality`` recorded with its summaries."""

    @abstractmethod
    def summarize_many(self, requests: Sequence[SummaryRequest], engine: Engine | None
                       ) -> list[str | BaseException]:
        ...


# -- structural ---------------------------------------------------------------------------

def short_name(n: Neighbour) -> str:
    """``Class.method`` for members, the plain name otherwise (fqn tail as a fallback)."""
    fqn = (n.fqn or "").rsplit(":", 1)[-1]
    if n.kind in _QUALIFIED_KINDS and fqn.count(".") >= 1:
        return ".".join(fqn.split(".")[-2:])
    return n.name or fqn.rsplit(".", 1)[-1] or n.label


def _names(neighbours: list[Neighbour]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(short_name(n) for n in neighbours))


def _name_list(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_NAMES])
    extra = len(names) - MAX_NAMES
    return shown + (f" and {extra} more" if extra > 0 else "")


def format_params(params: Any) -> list[str]:
    """``nodes.meta.params`` ([[name, type], ...], tolerant of dicts and bare names)."""
    out = []
    for p in params or []:
        if isinstance(p, list | tuple) and p:
            name, typ = p[0], (p[1] if len(p) > 1 else None)
        elif isinstance(p, dict):
            name, typ = p.get("name"), p.get("type")
        else:
            name, typ = p, None
        if name:
            out.append(f"`{name}: {typ}`" if typ else f"`{name}`")
    return out


def _headline(r: SummaryRequest) -> str:
    kind = r.kind.lower().replace("_", " ")
    line = f"**{kind.capitalize()}** `{r.name or r.fqn}`"
    if r.parent_fqn and r.parent_kind not in (None, "FILE", "REPOSITORY", "PACKAGE"):
        line += f" of {r.parent_kind.lower()} `{r.parent_fqn}`"
    where = []
    if r.lang:
        where.append(r.lang)
    if r.file_path:
        where.append(f"`{r.file_path}`" + (f" lines {r.lines[0]}-{r.lines[1]}" if r.lines
                                          else ""))
    return line + (f" ({', '.join(where)})" if where else "") + "."


def structural_summary(r: SummaryRequest) -> str:
    """The deterministic summary (see the module docstring)."""
    facts = []
    if r.meta.get("http_method") or r.meta.get("route"):
        facts.append(f"Endpoint: `{r.meta.get('http_method') or 'ANY'} "
                     f"{r.meta.get('route') or '/'}`")
    params = format_params(r.meta.get("params"))
    if params:
        facts.append("Parameters: " + ", ".join(params))
    if r.meta.get("return_type"):
        facts.append(f"Returns: `{r.meta['return_type']}`")
    for label, names in (("Extends", r.extends), ("Implements", r.implements),
                         ("Calls", r.calls), ("Called by", r.called_by)):
        if names:
            facts.append(f"{label}: {_name_list(names)}")
    words = words_of(r.name, (r.parent_fqn or "").rsplit(".", 1)[-1] if r.parent_fqn else None)
    if words:
        facts.append("Words: " + " ".join(words))
    return "\n".join([_headline(r), ""] + [f"- {f}" for f in facts]).strip()


class StructuralSummarizer(Summarizer):
    def quality(self) -> dict[str, Any]:
        return {"method": "structural"}

    def summarize_many(self, requests: Sequence[SummaryRequest], engine: Engine | None
                       ) -> list[str | BaseException]:
        return [structural_summary(r) for r in requests]


# -- LLM ----------------------------------------------------------------------------------

SYSTEM_PROMPT = (
    "You write short summaries of source code for a code search index. In 2 to 4 "
    "sentences of plain Markdown, say what the code does, its inputs and outputs and any "
    "side effects. Do not repeat the code. No preamble."
)


def llm_prompt(r: SummaryRequest) -> list[dict[str, str]]:
    code = r.code[:MAX_CODE_CHARS]
    user = (f"{r.kind.lower()} `{r.fqn or r.name}` ({r.lang or 'code'})\n\n"
            f"```{(r.lang or '').lower()}\n{code}\n```")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


@dataclass
class OpenAICompatibleSummarizer(Summarizer):
    """Summaries from a chat-completions server, cached by content hash."""

    client: ChatClient
    concurrency: int = DEFAULT_CONCURRENCY

    @classmethod
    def from_settings(cls, settings: Settings, **client_options: Any
                      ) -> OpenAICompatibleSummarizer:
        assert settings.llm_base_url
        options = {"timeout": settings.llm_timeout, "retries": settings.llm_retries,
                   **client_options}
        client = ChatClient(base_url=settings.llm_base_url,
                            model=settings.llm_model or "default", api_key=settings.llm_api_key,
                            **options)
        return cls(client=client, concurrency=settings.llm_concurrency or DEFAULT_CONCURRENCY)

    def quality(self) -> dict[str, Any]:
        return {"method": "llm", "model": self.client.model}

    def cache_key(self, r: SummaryRequest) -> str:
        return sha256_hex(json.dumps([PROMPT_VERSION, self.client.model, r.fqn, r.kind,
                                      r.content_hash]))

    def summarize_many(self, requests: Sequence[SummaryRequest], engine: Engine | None
                       ) -> list[str | BaseException]:
        keys = [self.cache_key(r) for r in requests]
        cached = _cache_get(engine, keys)
        todo = [i for i, k in enumerate(keys) if k not in cached]
        results: list[str | BaseException] = [cached.get(k, "") for k in keys]
        pool = ThreadPoolExecutor(max_workers=max(1, self.concurrency))
        try:
            answers = list(pool.map(self._one, [requests[i] for i in todo]))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        fresh = {}
        for i, answer in zip(todo, answers, strict=True):
            results[i] = answer
            if isinstance(answer, str):
                fresh[keys[i]] = answer
        _cache_put(engine, self.client.model, fresh)
        return results

    def _one(self, r: SummaryRequest) -> str | BaseException:
        try:
            return self.client.complete(llm_prompt(r))
        except Exception as exc:  # becomes this chunk's failure (StageFailure: the reason)
            return exc


def _cache_get(engine: Engine | None, keys: list[str]) -> dict[str, str]:
    if engine is None or not keys:
        return {}
    with engine.connect() as conn:
        return store.cached_summaries(conn, keys)


def _cache_put(engine: Engine | None, model: str, entries: dict[str, str]) -> None:
    if engine is None or not entries:
        return
    with engine.begin() as conn:
        store.cache_summaries(conn, model, entries)


def make_summarizer(settings: Settings) -> Summarizer:
    """The LLM summarizer when a base URL is configured, else the structural one."""
    if settings.llm_base_url:
        return OpenAICompatibleSummarizer.from_settings(settings)
    return StructuralSummarizer()


# -- the stage ----------------------------------------------------------------------------

def build_request(item: WorkItem, neighbours: Any) -> SummaryRequest:
    node = item.node
    out = neighbours.outgoing if neighbours else (lambda _k: [])
    in_ = neighbours.incoming if neighbours else (lambda _k: [])
    content = item.get("content") or ""
    return SummaryRequest(
        chunk_id=item.id, kind=node.kind, name=node.name, fqn=node.fqn, lang=node.lang,
        file_path=node.file_path, lines=item.span, signature=node.signature,
        meta=node.meta or {}, parent_kind=node.parent_kind, parent_fqn=node.parent_fqn,
        code=content, content_hash=item.get("content_hash") or sha256_hex(content),
        calls=_names(out("CALLS")), called_by=_names(in_("CALLS")),
        extends=_names(out("EXTENDS")), implements=_names(out("IMPLEMENTS")),
    )


class SummarizeStage(BatchStage):
    name = SUMMARIZE
    applies_to = frozenset({CODE_CHUNKS})
    reads_edges = True

    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        summarizer: Summarizer = ctx.resource("summarizer", lambda: make_summarizer(ctx.settings))
        with ctx.engine.connect() as conn:
            graph = load_neighbours(conn, [i.node.id for i in items],
                                    ("CALLS", "EXTENDS", "IMPLEMENTS"))
        requests = [build_request(i, graph.get(i.node.id)) for i in items]
        answers = summarizer.summarize_many(requests, ctx.engine)
        result = StageResult()
        quality = summarizer.quality()
        for item, answer in zip(items, answers, strict=True):
            if isinstance(answer, EnvironmentProblem):
                raise answer
            if isinstance(answer, BaseException):
                record_failure(result, self.name, item, answer)
                continue
            item.set("explain_md", answer)
            item.set("explain_quality", quality)
        return result
