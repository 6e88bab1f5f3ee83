"""What each language's HTTP clients look like, as data: one :class:`HttpClients` per
language in the registry of :mod:`graphrag.parsing.http.registry` (built-ins in
:mod:`graphrag.parsing.http.builtin`; a plugin registers one for its language through the
``graphrag.http_clients`` entry point group, ``register(language name, HttpClients(...))``).

The shapes a request takes are few and shared by the languages:

* a function of a client module (``requests.get(url)``, ``http.Get(url)``, ``fetch(url)``):
  :attr:`HttpClients.functions`, callee as written -> :class:`Send`;
* a method of a client instance (``client.get("/users")`` after ``client =
  httpx.Client(base_url=...)``, a field declared ``RestTemplate``):
  :attr:`HttpClients.factories` make instances (and may give them a base URL),
  :attr:`HttpClients.client_types` name the types of instances, and
  :attr:`HttpClients.methods` say what each method of an instance sends;
* a builder chain (``webClient.get().uri("/x")``, ``client.R().Get("/x")``):
  :attr:`HttpClients.chain_urls` name the chain's method that takes the URL, the verb
  anywhere in the chain gives the HTTP method;
* a declared interface (OpenFeign ``@FeignClient`` + ``@GetMapping``, Retrofit ``@GET``):
  :attr:`HttpClients.method_annotations` and :attr:`HttpClients.client_annotations`.

How the syntax of a language is read (calls, arguments, strings, constants) is the
language's :class:`graphrag.parsing.http.syntax.Syntax`, named by ``syntax``."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Send:
    """One way of sending a request: the client's name, the HTTP method (None: read
    from ``method_arg`` or the ``method`` option, else unknown) and where the URL is
    (``url_arg``: a position, or a keyword/option name)."""

    client: str
    method: str | None
    url_arg: int | str = 0
    method_arg: int | str | None = None
    options_arg: int | None = None  # an options object holding ``method``/``url``


@dataclass(frozen=True)
class Factory:
    """A call that makes a client instance (``httpx.Client(base_url=...)``):
    the base URL is the argument ``base_arg`` (position or keyword) or the option
    ``base_option`` of an options object at position 0 (``axios.create({baseURL})``)."""

    client: str
    base_arg: int | str | None = None
    base_option: str | None = None


@dataclass(frozen=True)
class HttpClients:
    """The HTTP clients of one language (see the module docstring). ``triggers``: byte
    strings one of which a file must contain to be looked at (most files send no
    request; the test is what keeps this step cheap)."""

    syntax: str  # "module:Class" of the language's Syntax
    triggers: tuple[bytes, ...]
    functions: dict[str, Send] = field(default_factory=dict)
    factories: dict[str, Factory] = field(default_factory=dict)
    client_types: dict[str, str] = field(default_factory=dict)  # type name -> client
    methods: dict[str, Send] = field(default_factory=dict)  # method of an instance
    # receiver names taken for an instance of a client without a declaration in the file
    # (``this.http`` of an injected Angular HttpClient)
    instance_names: dict[str, str] = field(default_factory=dict)
    chain_urls: dict[str, str] = field(default_factory=dict)  # URL method -> client
    method_annotations: dict[str, str | None] = field(default_factory=dict)
    client_annotations: dict[str, str] = field(default_factory=dict)
    # calls that read one value of the environment or configuration by its key
    env_readers: frozenset[str] = frozenset()

    def syntax_class(self) -> type:
        module, _, cls = self.syntax.partition(":")
        return getattr(importlib.import_module(module), cls)


def verbs(client: str, prefix: str, url_arg: int | str = 0, *, upper: bool = False,
          title: bool = False, options_arg: int | None = None) -> dict[str, Send]:
    """``{prefix + verb: Send(client, VERB)}`` for every HTTP verb, in lower case (or
    upper/title case)."""
    out = {}
    for verb in VERBS:
        spelled = verb if upper else verb.title() if title else verb.lower()
        out[prefix + spelled] = Send(client, verb, url_arg, options_arg=options_arg)
    return out
