"""HTTP call sites of one file: the requests its code sends, with method and URL
template (:class:`graphrag.parsing.model.HttpCall`), found with the language's client
set (:data:`graphrag.parsing.http.registry.CLIENTS`) and syntax."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

from tree_sitter import Node

from graphrag.kinds import CALLABLE_KINDS
from graphrag.parsing import registry
from graphrag.parsing.http.clients import VERBS, HttpClients, Send
from graphrag.parsing.http.registry import CLIENTS
from graphrag.parsing.http.syntax import Syntax, type_query
from graphrag.parsing.http.urls import Part, merge, render, split_url
from graphrag.parsing.model import HttpCall, ParseResult


def warm_up(langs: Iterable[str]) -> None:
    """Import the client sets and syntaxes of ``langs`` and compile their queries now
    (a parent process before it forks its parse workers: they inherit them, instead of
    each paying for them at its first file that sends a request)."""
    for lang in langs:
        _prepared(lang)


@cache
def _prepared(lang: str) -> type[Syntax] | None:
    clients = CLIENTS.find(lang)
    if clients is None:
        return None
    syntax = clients.syntax_class()
    type_query(lang, syntax.query_types())
    return syntax


def http_calls(source: bytes, result: ParseResult) -> list[HttpCall]:
    """The HTTP requests sent by the code of one parsed file (empty when its language
    has no client set or the file names none of its clients)."""
    clients = CLIENTS.find(result.lang)
    if clients is None or not any(t in source for t in clients.triggers):
        return []
    tree = registry.parser(result.lang).parse(source)
    syntax = _prepared(result.lang)(source, tree.root_node, clients, result.lang)
    finder = _Finder(syntax, clients, result)
    return sorted(finder.run(), key=lambda c: (c.line, c.url))


class _Finder:
    def __init__(self, syntax: Syntax, clients: HttpClients, result: ParseResult) -> None:
        self.syntax, self.clients, self.result = syntax, clients, result
        self.callables = sorted(
            (s for s in result.symbols if s.kind in CALLABLE_KINDS),
            key=lambda s: (s.line_end - s.line_start, s.line_start))
        # instance name -> (client, base parts)
        self.instances: dict[str, tuple[str, list[Part]]] = {}
        for var, client in clients.instance_names.items():
            self.instances[var] = (client, [])
        for var, type_text in syntax.typed_names():
            written = type_text.split("<", 1)[0].strip()
            client = clients.client_types.get(written) or clients.client_types.get(
                written.split(".")[-1])
            if client is not None:
                self.instances[var] = (client, [])

    def run(self) -> Iterator[HttpCall]:
        calls = self.syntax.nodes_of(self.syntax.call_types)
        # instances first: a client made anywhere in the file serves every use
        for call in calls:
            self._factory(call)
        for call in calls:
            site = self._site(call)
            if site is not None:
                yield site
        yield from self._declared()

    def _factory(self, call: Node) -> None:
        chain = self.syntax.callee(call)
        if chain is None:
            return
        factory = self.clients.factories.get(_dotted(chain))
        if factory is None:
            return
        target = self._assigned_name(call)
        if target is None:
            return
        base: list[Part] = []
        args, kwargs = self.syntax.arguments(call)
        if factory.base_arg is not None:
            node = _arg(args, kwargs, factory.base_arg)
            base = self.syntax.value(node) if node is not None else []
        elif factory.base_option is not None and args:
            opts = self.syntax.options(args[0]) or {}
            if factory.base_option in opts:
                base = self.syntax.value(opts[factory.base_option])
        self.instances[target] = (factory.client, base)

    def _assigned_name(self, call: Node) -> str | None:
        """The name a client instance is bound to (the last name of an assignment's
        target, or of a ``with ... as`` alias), walking up through builder chains."""
        node = call
        for _ in range(8):
            parent = node.parent
            if parent is None:
                return None
            target = _target_of(self.syntax, parent, call)
            if target is not None:
                return target
            node = parent
        return None

    def _site(self, call: Node) -> HttpCall | None:
        chain = self.syntax.callee(call)
        if not chain:
            return None
        dotted = _dotted(chain)
        send = self.clients.functions.get(dotted)
        base: list[Part] = []
        if send is None and len(chain) >= 2:
            receiver = chain[-2]
            instance = self.instances.get(receiver) or self.instances.get(
                receiver.removesuffix("()"))
            if instance is None and len(chain) >= 3 and chain[-2].endswith("()"):
                instance = self.instances.get(chain[-3])
            if instance is not None:
                send = self.clients.methods.get(chain[-1])
                if send is not None:
                    send = Send(instance[0], send.method, send.url_arg, send.method_arg,
                                send.options_arg)
                    base = instance[1]
            if send is None and chain[-1] in self.clients.chain_urls:
                return self._chain_site(call, chain)
        if send is None:
            return None
        args, kwargs = self.syntax.arguments(call)
        opts = self.syntax.options(args[send.options_arg]) if send.options_arg is not None \
            and send.options_arg < len(args) else None
        url_node = _arg(args, kwargs, send.url_arg)
        if (url_node is None or url_node == (args[send.options_arg] if opts is not None
                                             else None)) and opts is not None:
            url_node = opts.get("url") or opts.get("uri")
        if url_node is None:
            return None
        method = send.method
        if method is None:
            node = _arg(args, kwargs, send.method_arg) if send.method_arg is not None \
                else None
            if node is None and opts is not None:
                node = opts.get("method")
            method = self._method(node) if node is not None else (
                "GET" if send.options_arg is not None else None)
        return self._make(call, send.client, method, base, self.syntax.value(url_node))

    def _chain_site(self, call: Node, chain: list[str]) -> HttpCall | None:
        """``webClient.get().uri("/x")``, ``Request.Builder().url(u).post(b)``: the URL
        method of a builder chain; the verb before or after it gives the method."""
        names = [c.removesuffix("()") for c in chain[:-1]] + _names_after(self.syntax, call)
        method = next((n.upper() for n in names if n.upper() in VERBS), None)
        head = next((c for c in chain if c not in ("this", "self")), chain[0])
        instance = self.instances.get(head.removesuffix("()"))
        if instance is None and not any(n in self.clients.client_types for n in names):
            return None
        args, _ = self.syntax.arguments(call)
        if not args:
            return None
        client = instance[0] if instance else self.clients.chain_urls[chain[-1]]
        base = instance[1] if instance else []
        return self._make(call, client, method or ("GET" if instance else None), base,
                          self.syntax.value(args[0]))

    def _method(self, node: Node) -> str | None:
        parts = self.syntax.value(node)
        text = parts[0][1] if len(parts) == 1 else ""
        word = text.rsplit(".", 1)[-1].removeprefix("Method").upper()
        return word if word in VERBS else None

    def _declared(self) -> Iterator[HttpCall]:
        """Methods of declared client interfaces (OpenFeign, Retrofit)."""
        anns = self.clients.method_annotations
        for class_anns, method_node, method_anns, line in self.syntax.annotated_methods():
            hit = next((a for a in method_anns if a in anns), None)
            if hit is None:
                continue
            client_ann = next((a for a in class_anns if a in self.clients.client_annotations),
                              None)
            client = self.clients.client_annotations.get(client_ann or "", "retrofit")
            args, kwargs = self.syntax.annotation_args(method_anns[hit])
            url_node = kwargs.get("value") or kwargs.get("path") or (args[0] if args else None)
            url = self.syntax.value(url_node) if url_node is not None else []
            method = anns[hit]
            if method is None:
                node = kwargs.get("method")
                method = self._method(node) if node is not None else None
            base: list[Part] = []
            service = None
            if client_ann is not None:
                cargs, ckw = self.syntax.annotation_args(class_anns[client_ann])
                svc = ckw.get("name") or ckw.get("value") or (cargs[0] if cargs else None)
                svc_parts = self.syntax.value(svc) if svc is not None else []
                service = render(svc_parts) or None
                if "url" in ckw:
                    base = self.syntax.value(ckw["url"])
                if "path" in ckw:
                    base = merge(base + self.syntax.value(ckw["path"]))
            if url and url[0][0] == "lit" and base and not url[0][1].startswith("/"):
                url = [("lit", "/" + url[0][1]), *url[1:]]
            yield self._make(method_node, client, method, base, url, line, service)

    def _make(self, node: Node, client: str, method: str | None, base: list[Part],
              url: list[Part], line: int | None = None,
              service: str | None = None) -> HttpCall:
        if base and not (url and url[0][0] == "lit" and "://" in url[0][1]):
            url = merge(base + url)
        url = merge(url)
        line = line or node.start_point[0] + 1
        base_text, path = split_url(url)
        return HttpCall(caller=self._caller(line), line=line, client=client,
                        method=method, url=render(url), base=base_text, path=path,
                        service=service)

    def _caller(self, line: int) -> str | None:
        for sym in self.callables:
            if sym.line_start <= line <= sym.line_end:
                return sym.fqn
        return None


def _dotted(chain: list[str]) -> str:
    return ".".join(chain)


def _arg(args: list[Node], kwargs: dict[str, Node], where: int | str | None) -> Node | None:
    if where is None:
        return None
    if isinstance(where, int):
        return args[where] if where < len(args) else None
    return kwargs.get(where)


def _target_of(syntax: Syntax, parent: Node, call: Node) -> str | None:
    for key, value, _pos in syntax.bindings_at(parent):
        if value.start_byte <= call.start_byte and call.end_byte <= value.end_byte:
            return key.rsplit(".", 1)[-1]
    return None


def _names_after(syntax: Syntax, call: Node) -> list[str]:
    """Method names called on the result of ``call`` further along its chain."""
    out: list[str] = []
    node = call
    for _ in range(8):
        parent = node.parent
        if parent is None:
            break
        outer = parent.parent if parent.type not in syntax.call_types else parent
        if outer is None or outer.type not in syntax.call_types:
            break
        chain = syntax.callee(outer)
        if not chain:
            break
        out.append(chain[-1])
        node = outer
    return out
