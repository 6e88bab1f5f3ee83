"""Matching one call site to endpoints (no database): the rules users rely on."""

from __future__ import annotations

from graphrag.graph.links import Endpoint, EndpointIndex, Site, match_site

ORDERS, USERS, WEB = 1, 2, 3
APPS = {ORDERS, USERS, WEB}


def ep(id_: int, app: int, methods: str, route: str, fqn: str = "",
       app_name: str | None = None) -> Endpoint:
    name = app_name or {ORDERS: "orders-svc", USERS: "users-svc", WEB: "web"}[app]
    return Endpoint(id_, app, name, frozenset(methods.split(",")), route, "src/x.py", fqn)


INDEX = EndpointIndex([
    ep(10, ORDERS, "PATCH", "/orders/{order_id}/cancel"),
    ep(11, ORDERS, "GET", "/orders/:id"),
    ep(12, ORDERS, "ANY", "/health"),
    ep(20, USERS, "GET", "/users/<int:uid>"),
    ep(21, USERS, "GET", "/api/v2/users/{id}/profile"),
    ep(22, USERS, "ANY", "/health"),
    ep(23, USERS, "GET", "/{name}"),
])


def site(path: str | None, method: str | None = "GET", base: str | None = None,
         service: str | None = None) -> Site:
    return Site(99, WEB, method, path, base, service)


def links(s: Site) -> list[tuple[int, float, str]]:
    return sorted((x.endpoint_id, x.confidence, x.reason) for x in match_site(s, INDEX, APPS))


def test_a_parameter_matches_one_segment_and_methods_must_agree() -> None:
    assert [x[0] for x in links(site("/orders/{oid}/cancel", "PATCH"))] == [10]
    assert links(site("/orders/{oid}/cancel", "POST")) == []
    assert links(site("/orders/{oid}/cancel/now", "PATCH")) == []
    assert [x[0] for x in links(site("/orders/42"))] == [11]


def test_an_unknown_method_matches_with_less_confidence() -> None:
    (found,) = links(site("/orders/{oid}/cancel", None))
    assert found[0] == 10 and found[1] < 0.9 and "method unknown" in found[2]


def test_equal_endpoints_of_two_services_share_the_confidence_unless_one_is_named() -> None:
    both = links(site("/health"))
    assert [x[0] for x in both] == [12, 22]
    assert all("one of 2 endpoints" in x[2] and x[1] < 0.5 for x in both)
    named = links(site("/health", base="${ORDERS_SERVICE_URL}"))
    assert [x[0] for x in named] == [12] and "base URL names the service" in named[0][2]


def test_a_configured_base_may_hide_a_mount_prefix() -> None:
    found = links(site("/users/{id}/profile", base="${USERS_URL}"))
    assert [x[0] for x in found] == [21] and "under prefix /api/v2" in found[0][2]
    # a literal host or a relative URL says the path is complete
    assert links(site("/users/{id}/profile", base="http://users-svc")) == []
    assert links(site("/users/{id}/profile")) == []


def test_a_gateway_prefix_counts_when_it_names_the_service() -> None:
    found = links(site("/api/users/users/7"))
    assert [x[0] for x in found] == [20] and "without prefix /api/users" in found[0][2]
    assert links(site("/api/billing/users/7")) == []


def test_a_declared_service_that_is_none_of_the_applications_is_no_link() -> None:
    assert links(site("/latest", service="rates-client", base="${rates.url}")) == []
    assert links(site("/health", base="https://status.example.org")) == []
    # a route of parameters only matches, with a low confidence
    (weak,) = links(site("/latest", base="${USERS_URL}"))
    assert weak[0] == 23 and weak[1] <= 0.55


def test_a_site_without_a_path_or_outside_the_allowed_applications() -> None:
    assert links(site(None)) == []
    assert match_site(site("/orders/1"), INDEX, {WEB, USERS}) == []
