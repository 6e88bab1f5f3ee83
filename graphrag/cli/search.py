"""`graphrag search`, `graphrag context`, `graphrag hit-test`: retrieval commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO, TypeVar

import click

from graphrag.cli.options import (
    context_for,
    db_option,
    engine_for,
    json_option,
    print_json,
    scope_for,
    settings_for,
)
from graphrag.config import Settings
from graphrag.db.context import AppScope, resolve_scope
from graphrag.embedding import Embedder, count_tokens, get_embedder, get_tokenizer
from graphrag.errors import InvalidInput
from graphrag.retrieval.context.render import FORMATS
from graphrag.retrieval.documents.search import document_search
from graphrag.retrieval.documents.sentences import GRANULARITIES
from graphrag.retrieval.search.batch import QueryLine, batch_search, read_query_lines
from graphrag.retrieval.search.filters import build_options
from graphrag.retrieval.search.hittest import ModeReport, hit_test
from graphrag.retrieval.search.model import (
    EXPANSIONS,
    HTTP_FILTERS,
    MODES,
    SIGNALS,
    SOURCES,
    SearchOptions,
)
from graphrag.retrieval.search.modes import mode_names

F = TypeVar("F", bound=Callable[..., Any])


def apps_option(fn: F) -> F:
    return click.option("--app", "app_names", required=True, multiple=True, metavar="NAME",
                        help="Application to search; repeat to search several at once.")(fn)


def document_search_options(fn: F) -> F:
    """``--granularity`` and ``--adjacent-pages`` for a search command."""
    fn = click.option("--adjacent-pages", type=click.IntRange(min=0), default=0,
                      metavar="N", help="Add chunks of pages within N pages of each"
                      " document hit (same document).")(fn)
    return click.option("--granularity", type=click.Choice(GRANULARITIES), default="chunk",
                        show_default=True, help="sentence: search the sentence pieces of"
                        " document chunks and return their parent chunks.")(fn)


def filter_options(fn: F) -> F:
    """The filters every search-like command accepts."""
    decorators = [
        click.option("--top-k", type=click.IntRange(min=1), default=10, show_default=True,
                     help="Number of hits."),
        click.option("--min-similarity", type=click.FloatRange(-1.0, 1.0), default=None,
                     help="Drop vector candidates below this cosine similarity (-1..1); in"
                          " hybrid mode a hit found only by full-text search has no"
                          " similarity and is kept (use --mode vector to apply it to"
                          " every hit)."),
        click.option("--kinds", metavar="A,B", help="Node kinds, e.g. METHOD,ENDPOINT."),
        click.option("--http", type=click.Choice(HTTP_FILTERS), default=None,
                     help="HTTP between services: endpoints, code that sends requests"
                          " (callers), or either (any)."),
        click.option("--lang", metavar="LANG", help="Language of the node, e.g. java."),
        click.option("--path", "path_glob", metavar="GLOB",
                     help="Repo-relative file path glob (** crosses folders)."),
        click.option("--source", type=click.Choice(SOURCES),
                     help="Code or doc chunks, or all (default: code and documents, except"
                          " documents in hidden tool folders and vendored trees)."),
        click.option("--priors/--no-priors", default=True, show_default=True,
                     help="Prefer functions/methods over classes, fields and files, and "
                          "library code over tests, examples, benchmarks, vendored and "
                          "generated code (unless the query asks for them)."),
        click.option("--per-file", type=click.IntRange(min=0), default=None, metavar="N",
                     help="Hits of one file shown before each further one is ranked down"
                          " (0: no limit; default: 1 for a symbol or a question, 5 for a"
                          " description of code)."),
        click.option("--no-signal", "disabled", type=click.Choice(SIGNALS), multiple=True,
                     help="Switch a ranking signal off (repeat)."),
    ]
    for deco in reversed(decorators):
        fn = deco(fn)
    return fn


def _options(mode: str, top_k: int, min_similarity: float | None, kinds: str | None,
             lang: str | None, path_glob: str | None, source: str | None,
             expand: tuple[str, ...] = (), priors: bool = True, per_file: int | None = None,
             disabled: tuple[str, ...] = (), http: str | None = None) -> SearchOptions:
    return build_options(mode, top_k, min_similarity, kinds, lang, path_glob, source, expand,
                         priors, per_file, disabled, http)


def _require_words(query: str | None) -> None:
    """An empty or blank query is refused, as a batch line with one is."""
    if query is not None and not query.strip():
        raise InvalidInput("empty query: give the words to search for")


def _embedder(settings: Settings, modes: list[str]) -> Embedder | None:
    """The process-wide model, loaded only when a mode needs query vectors."""
    return get_embedder(settings) if any(m != "text" for m in modes) else None


def _query_encoder(settings: Settings, modes: list[str]) -> Embedder | None:
    """The model with its query session created (run while the database connects)."""
    embedder = _embedder(settings, modes)
    warm = getattr(embedder, "warm", None)
    if warm is not None:
        warm()
    return embedder


def _connect_and_load(db_url: str | None, modes: list[str], app_names: Sequence[str]
                      ) -> tuple[AppScope, Embedder | None]:
    """The scope of ``app_names`` and the query encoder; the model loads in a second
    thread while the engine connects, checks migrations and resolves the applications (a
    one-shot search waits for the slower one instead of both)."""
    settings = settings_for(db_url)
    with ThreadPoolExecutor(max_workers=1) as pool:
        loading = pool.submit(_query_encoder, settings, modes)
        settings, engine = engine_for(db_url)
        scope = resolve_scope(engine, settings, app_names)
        return scope, loading.result()


def _read_lines(path: str) -> list[QueryLine]:
    if path == "-":
        return read_query_lines(sys.stdin)
    try:
        with open(path, encoding="utf-8") as fh:
            return read_query_lines(fh)
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from exc


def _print_hits(hits: list[dict[str, Any]], out: TextIO | None = None) -> None:
    for n, h in enumerate(hits, start=1):
        where = h["file_path"] or ""
        where += f" p.{h['page_number']}" if h["page_number"] is not None else (
            f":{h['line_start']}-{h['line_end']}" if h["line_start"] is not None else "")
        why = ""
        if h.get("added_by"):
            why = f"  (+ {h['added_by']['relation']} of {h['added_by']['fqn']})"
        click.echo(f"{n:>3}. {h['score']:.4f}  {h['kind']:<11} {h['fqn']}  {where}{why}",
                   file=out)
        # first line that says something (not a code fence)
        first = [ln for ln in (h["snippet"] or "").splitlines()
                 if ln.strip() and not ln.startswith("```")][:1]
        if first:
            click.echo(f"       {first[0][:100]}", file=out)


class ModeChoice(click.Choice):
    """The registered search modes (plugins included), read when the option is used
    rather than when the CLI is imported."""

    def __init__(self) -> None:
        super().__init__(MODES)

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(mode_names())

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # always the registry's


@click.command("search")
@click.argument("query", required=False)
@apps_option
@click.option("--mode", type=ModeChoice(), default="hybrid", show_default=True,
              help="hybrid = vector, BM25, title and name signals fused, then ranked with "
                   "the graph; vector or text = one list alone.")
@filter_options
@click.option("--expand", type=click.Choice(EXPANSIONS), multiple=True,
              help="Add callers and callees of the top hits.")
@click.option("--queries", "queries_file", metavar="FILE.jsonl",
              help='Batch: JSON lines {"id": ..., "query": ...} ("-" = stdin).')
@click.option("--json-envelope", is_flag=True,
              help="JSON object with mode, timing and hits (implies --json).")
@document_search_options
@db_option
@json_option
def search_cmd(query: str | None, app_names: tuple[str, ...], mode: str, top_k: int,
               min_similarity: float | None, kinds: str | None, http: str | None,
               lang: str | None,
               path_glob: str | None, source: str | None, priors: bool, per_file: int | None,
               disabled: tuple[str, ...], expand: tuple[str, ...], queries_file: str | None,
               json_envelope: bool,
               granularity: str, adjacent_pages: int, db_url: str | None, as_json: bool) -> None:
    """Search chunks of one or more applications for QUERY (or a --queries file)."""
    if (query is None) == (queries_file is None):
        raise click.UsageError("give a QUERY or --queries FILE (not both)")
    _require_words(query)
    options = _options(mode, top_k, min_similarity, kinds, lang, path_glob, source, expand,
                       priors, per_file, disabled, http)
    if queries_file is not None:
        if granularity != "chunk" or adjacent_pages:
            raise click.UsageError("--granularity/--adjacent-pages need a single QUERY")
        _search_batch(scope_for(db_url, app_names), queries_file, options,
                      as_json or json_envelope)
        return
    scope, embedder = _connect_and_load(db_url, [mode], app_names)
    # documents: sentence-level search and adjacent pages (graphrag.retrieval.documents.sentences,
    # graphrag.retrieval.documents.adjacent)
    result = document_search(scope, query or "", options, embedder, granularity,
                             adjacent_pages)
    timing = " ".join(f"{k}={v}" for k, v in result.timing.items())
    if json_envelope:
        print_json(result.envelope())
    elif as_json:
        print_json(result.hits)
        click.echo(f"mode={result.mode} {timing}", err=True)
    else:
        _print_hits(result.hits)
        click.echo(f"{len(result.hits)} hits, mode={result.mode} {timing}", err=True)


def _search_batch(scope: AppScope, path: str, options: SearchOptions, as_json: bool
                  ) -> None:
    """JSON lines out, one per input line; exit 1 at the end when any line failed."""
    items = _read_lines(path)
    failed = 0
    embedder = _embedder(scope.settings, [options.mode])
    for record in batch_search(scope, items, options, embedder):
        failed += "error" in record
        if as_json:
            click.echo(json.dumps(record, ensure_ascii=False, default=str))
        elif "error" in record:
            click.echo(f"line {record['line']}: {record['error']}", err=True)
        else:
            click.echo(f"== {record['id']}")
            _print_hits(record["hits"])
    if failed:
        click.echo(f"{failed} of {len(items)} queries failed", err=True)
        sys.exit(1)


@click.command("context")
@click.argument("fqn", required=False)
@click.option("--query", help="Seed the context with the best hits of this query.")
@click.option("--app", "app_name", required=True, metavar="NAME", help="Application.")
@click.option("--budget-tokens", type=click.IntRange(min=1), default=4000, show_default=True,
              help="Token budget of the whole context.")
@click.option("--depth", type=click.IntRange(min=0), default=2, show_default=True,
              help="Graph hops around the seed nodes.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="markdown",
              show_default=True, help="Output format.")
@click.option("--test-callers", is_flag=True,
              help="List the seed's callers in tests (by default they are counted).")
@db_option
@json_option
def context_cmd(fqn: str | None, query: str | None, app_name: str, budget_tokens: int,
                depth: int, fmt: str, test_callers: bool, db_url: str | None,
                as_json: bool) -> None:
    """Context around FQN (or --query) ranked by personalized PageRank, within a budget.

    FQN is the full name or the name users write: a re-exported `pkg.Name`, a Java or
    Kotlin simple class name, `Class.method`; an unknown name lists the closest ones."""
    if (fqn is None) == (query is None):
        raise click.UsageError("give an FQN or --query (not both)")
    _require_words(query)
    from graphrag.retrieval.context.builder import build_context  # networkx: only this command

    app = context_for(db_url, app_name)
    settings = app.settings
    tokenizer = get_tokenizer(settings)
    ctx = build_context(
        app, fqn=fqn, query=query, budget=budget_tokens, depth=depth, fmt=fmt,
        count_tokens=lambda s: count_tokens(tokenizer, [s])[0],
        embedder=get_embedder(settings) if query is not None else None,
        test_callers=test_callers,
    )
    if as_json:
        print_json(ctx.to_dict())
    else:
        click.echo(ctx.text)
        click.echo(f"{len(ctx.blocks)} blocks, {ctx.tokens}/{ctx.budget} tokens", err=True)


def _print_reports(reports: list[ModeReport]) -> None:
    click.echo(f"{'mode':<8} {'n':>4} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR@10':>7}")
    for r in reports:
        m = r.metrics
        click.echo(f"{r.mode:<8} {r.queries:>4} {m['recall@1']:>6.3f} {m['recall@5']:>6.3f}"
                   f" {m['recall@10']:>6.3f} {m['mrr@10']:>7.3f}")
    for r in reports:
        for miss in r.misses:
            click.echo(f"miss [{r.mode}] {miss['id']}: {miss['query']!r} expected "
                       f"{miss['expected']} got {miss['got']}")


@click.command("hit-test")
@apps_option
@click.option("--queries", "queries_file", required=True, metavar="FILE.jsonl",
              help='JSON lines {"id", "query", "fqn" | "file_path"+"line_start"/"line_end"}.')
@click.option("--mode", "modes", type=ModeChoice(), multiple=True,
              help="Modes to test (repeat; default: all).")
@filter_options
@db_option
@json_option
def hit_test_cmd(app_names: tuple[str, ...], queries_file: str, modes: tuple[str, ...],
                 top_k: int, min_similarity: float | None, kinds: str | None,
                 http: str | None,
                 lang: str | None, path_glob: str | None, source: str | None, priors: bool,
                 per_file: int | None, disabled: tuple[str, ...], db_url: str | None,
                 as_json: bool) -> None:
    """Recall@1/5/10 and MRR@10 of a query file, per mode, with the misses."""
    mode_list = list(modes or MODES)
    options = _options(mode_list[0], top_k, min_similarity, kinds, lang, path_glob, source,
                       priors=priors, per_file=per_file, disabled=disabled, http=http)
    scope = scope_for(db_url, app_names)
    items = _read_lines(queries_file)
    reports, errors = hit_test(scope, items, mode_list, options,
                               _embedder(scope.settings, mode_list))
    if as_json:
        print_json({"queries_file": str(Path(queries_file)),
                    "modes": [r.to_dict() for r in reports], "errors": errors})
    else:
        _print_reports(reports)
    for err in errors:
        click.echo(f"line {err['line']}: {err['error']}", err=True)
    if errors:
        sys.exit(1)


def register(cli: click.Group) -> None:
    for command in (search_cmd, context_cmd, hit_test_cmd):
        cli.add_command(command)
