"""Matching HTTP call sites to the ENDPOINTs they reach (pure; the rows are read and
written by :mod:`graphrag.graph.links_store`).

A site matches an endpoint when the methods agree (an unknown method or an endpoint
that takes any method matches every one) and the path templates do, segment by segment
(a parameter matches one segment). A URL whose base comes from configuration may leave
out a prefix the service mounts its routes under: such a site also matches an endpoint
whose route is its path under up to :data:`_MAX_PREFIX` more leading segments, with a
lower confidence; and a path whose leading segments a gateway or context path strips
matches the routes of the service those segments (or the site) name. When a base URL,
an environment variable or a declared client names a service (``ORDERS_URL``,
``http://orders-svc:8080``, ``@FeignClient("orders")``), the endpoints of the
application (or top folder) of that name are kept over the others; otherwise every best
endpoint is kept, each with its share of the confidence. A declared service or a
literal host that names none of the applications is outside them: no link."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from graphrag.parsing.http.urls import PARAM, segments, service_words

_MAX_PREFIX = 2


@dataclass(frozen=True)
class Endpoint:
    """An ENDPOINT node: id, application, methods (``ANY`` for all), route, file, fqn."""

    id: int
    app_id: int
    app_name: str
    methods: frozenset[str]
    route: str
    file_path: str | None
    fqn: str = ""

    @property
    def segments(self) -> tuple[str, ...]:
        return segments(self.route)

    def words(self) -> set[str]:
        """Words of its application's name, of its file's top folder and of its package
        (the dotted head of its fqn: ``com.example.library.web.X.get``)."""
        top = (self.file_path or "").split("/", 1)[0] if "/" in (self.file_path or "") \
            else ""
        parts = self.fqn.split(".") if self.fqn else []
        # lower-case module and package names, and the namespace before a class and its
        # member (``Shop.Api.Controllers.OrdersController.Status``)
        package = [p for p in parts[:-1] if p.islower()] + parts[:-2]
        return service_words(self.app_name) | service_words(top) | {
            w for p in package for w in service_words(p)}


@dataclass(frozen=True)
class Site:
    """An HTTP call site: id, application, method, path template, base, service."""

    id: int
    app_id: int
    method: str | None
    path: str | None
    base: str | None
    service: str | None


@dataclass(frozen=True)
class Link:
    call_id: int
    endpoint_id: int
    app_id: int
    endpoint_app_id: int
    confidence: float
    reason: str


class EndpointIndex:
    """Endpoints bucketed by segment count and last segment, for quick candidates."""

    def __init__(self, endpoints: Iterable[Endpoint]) -> None:
        self._buckets: dict[tuple[int, str], list[tuple[Endpoint, tuple[str, ...]]]] = \
            defaultdict(list)
        self._words: dict[int, set[str]] = {}
        self._app_words: dict[int, set[str]] = defaultdict(set)
        for ep in endpoints:
            segs = ep.segments
            self._buckets[(len(segs), segs[-1] if segs else "")].append((ep, segs))
            self._words[ep.id] = ep.words()
            self._app_words[ep.app_id] |= self._words[ep.id]

    def candidates(self, segs: tuple[str, ...], extra: int
                   ) -> Iterable[tuple[Endpoint, tuple[str, ...]]]:
        n = len(segs) + extra
        last = segs[-1] if segs else ""
        yield from self._buckets.get((n, last), ())
        if last != PARAM:
            yield from self._buckets.get((n, PARAM), ())

    def may_match(self, site: Site) -> bool:
        """Whether some endpoint here could match ``site`` by any rule (a cheap test on
        segment counts and last segments: a superset of :func:`match_site`)."""
        if site.path is None:
            return False
        segs = segments(site.path)
        tails = [segs] + [segs[cut:] for cut in range(1, _MAX_PREFIX + 1) if cut < len(segs)]
        return any(next(iter(self.candidates(tail, extra)), None) is not None
                   for tail in tails for extra in range(_MAX_PREFIX + 1))

    def words(self, endpoint: Endpoint) -> set[str]:
        return self._words[endpoint.id]

    def words_of_app(self, app_id: int) -> set[str]:
        """Words of an application's name and of its endpoints' top folders."""
        return self._app_words.get(app_id, set())


def _segments_match(site: tuple[str, ...], endpoint: tuple[str, ...]) -> bool:
    """Site segments against the same number of endpoint segments: a site parameter
    matches only an endpoint parameter, an endpoint parameter any segment."""
    for s, e in zip(site, endpoint, strict=True):
        if e == PARAM:
            continue
        if s != e:
            return False
    return True


def _method_ok(site: Site, ep: Endpoint) -> bool:
    return site.method is None or "ANY" in ep.methods or site.method in ep.methods


def _declared_words(site: Site) -> set[str]:
    """Words of a service the site names for sure: a declared client's service, or a
    literal host (not a configuration name, which may point anywhere)."""
    words = service_words(site.service or "")
    if site.base and "://" in site.base and "{" not in site.base:
        words |= service_words(site.base)
    return words


def _under_service_prefix(site: Site, segs: tuple[str, ...], index: EndpointIndex,
                          allowed: set[int], words: set[str]
                          ) -> list[tuple[float, str, Endpoint]]:
    """A path whose leading segments a gateway or a context path strips before the
    service sees it (``/api/customer/owners`` -> ``/owners`` of the customers service,
    ``/uaa/users`` -> ``/users`` of the auth service): only to an application named by
    the site (base URL, declared service) or by the stripped segments themselves."""
    found: list[tuple[float, str, Endpoint]] = []
    for cut in range(1, _MAX_PREFIX + 1):
        if len(segs) - cut < 1:
            break
        stripped = segs[:cut]
        if PARAM in stripped:
            break
        naming = words | {w for seg in stripped for w in service_words(seg)}
        for ep, eps in index.candidates(segs[cut:], 0):
            if ep.app_id in allowed and _method_ok(site, ep) \
                    and _segments_match(segs[cut:], eps) and naming & index.words(ep):
                literal = any(e != PARAM for e in eps)
                found.append((0.7 if literal else 0.6,
                              f"path without prefix /{'/'.join(stripped)}", ep))
        if found:
            return found
    return found


def match_site(site: Site, index: EndpointIndex, allowed: set[int]) -> list[Link]:
    """The links of one site to the endpoints of the applications ``allowed``."""
    if site.path is None:
        return []
    segs = segments(site.path)
    found: list[tuple[float, str, Endpoint]] = []
    for ep, eps in index.candidates(segs, 0):
        if ep.app_id in allowed and _method_ok(site, ep) and _segments_match(segs, eps):
            exact = PARAM not in segs and PARAM not in eps
            if eps and all(e == PARAM for e in eps):
                found.append((0.5, "route of parameters only", ep))
            else:
                found.append((0.95 if exact else 0.9,
                              "exact path" if exact else "path template", ep))
    if not found and segs and site.base is not None and site.base.startswith("${"):
        for extra in range(1, _MAX_PREFIX + 1):
            for ep, eps in index.candidates(segs, extra):
                if ep.app_id in allowed and _method_ok(site, ep) \
                        and any(e != PARAM for e in eps[extra:]) \
                        and _segments_match(segs, eps[extra:]):
                    found.append((0.6, f"path under prefix /{'/'.join(eps[:extra])}", ep))
            if found:
                break
    words = service_words(site.base or "") | service_words(site.service or "")
    strong = _declared_words(site)
    if strong and not any(strong & index.words_of_app(a) for a in allowed):
        return []  # a declared service or host that is none of the applications
    if not found:
        found = _under_service_prefix(site, segs, index, allowed, words)
    if not found:
        return []
    named = [f for f in found if words & index.words(f[2])] if words else []
    chosen = named or found
    best = max(c[0] for c in chosen)
    chosen = [c for c in chosen if c[0] == best]
    share = 1 if named else len(chosen)
    out = []
    for confidence, reason, ep in chosen:
        parts = [reason]
        if site.method is None:
            confidence *= 0.8
            parts.append("method unknown")
        if named:
            confidence = min(1.0, confidence + 0.05)
            parts.append("client names the service" if site.service
                         else "base URL names the service")
        elif share > 1:
            confidence /= share
            parts.append(f"one of {share} endpoints")
        out.append(Link(site.id, ep.id, site.app_id, ep.app_id, round(confidence, 3),
                        "; ".join(parts)))
    return out
