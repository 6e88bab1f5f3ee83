"""HTTP call sites found by the extractors: client, method, URL template, base, path."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.parsing.extract import parse_file
from graphrag.parsing.http.urls import lit, name, param, segments, split_url
from graphrag.parsing.registry import RepoContext


def sites(source: str, path: str) -> list[tuple]:
    result = parse_file(source.encode(), path, RepoContext())
    assert result is not None
    return [(h.caller, h.client, h.method, h.url, h.base, h.path)
            for h in result.http_calls]


PYTHON = '''
import os, requests, httpx
ORDERS = os.getenv("ORDERS_URL", "http://orders:8000")
USER = os.environ["USER_HOST"]

class Client:
    def __init__(self):
        self.http = httpx.Client(base_url=settings.users_url)

    def user(self, uid):
        return self.http.get(f"/users/{uid}").json()

def cancel(order_id):
    requests.request("PATCH", "{}/orders/{}/cancel".format(ORDERS, order_id))
    requests.post("http://{u}:8080/order/{id}".format(u=USER, id=order_id), json={})
    requests.get(some_url)
    other.get("/not/a/client")
'''


def test_python_clients_and_urls() -> None:
    assert sites(PYTHON, "app/clients.py") == [
        ("app.clients.Client.user", "httpx", "GET", "${settings.users_url}/users/{uid}",
         "${settings.users_url}", "/users/{uid}"),
        ("app.clients.cancel", "requests", "PATCH", "${ORDERS_URL}/orders/{order_id}/cancel",
         "${ORDERS_URL}", "/orders/{order_id}/cancel"),
        ("app.clients.cancel", "requests", "POST", "http://${USER_HOST}:8080/order/{id}",
         "http://${USER_HOST}:8080", "/order/{id}"),
        # a URL entirely from configuration: kept, with no path to match
        ("app.clients.cancel", "requests", "GET", "${some_url}", "${some_url}", None),
    ]


TYPESCRIPT = '''
import axios from 'axios';
const api = axios.create({ baseURL: process.env.API_URL || 'http://localhost' });
export class Users {
  constructor(private http: HttpClient) {}
  one(id: string) { return this.http.get<User>(`/api/users/${id}`); }
  async drop(id: string) {
    await api.delete(`/users/${id}`);
    return fetch('/api/users/' + id + '?hard=1', { method: 'DELETE' });
  }
}
'''


def test_typescript_clients_and_urls() -> None:
    assert sites(TYPESCRIPT, "src/users.ts") == [
        ("src/users:Users.one", "angular", "GET", "/api/users/{id}", None, "/api/users/{id}"),
        ("src/users:Users.drop", "axios", "DELETE", "${API_URL}/users/{id}", "${API_URL}",
         "/users/{id}"),
        ("src/users:Users.drop", "fetch", "DELETE", "/api/users/{id}?hard=1", None,
         "/api/users/{id}"),
    ]


JAVA = '''
package com.example.shop.clients;

@FeignClient(name = "library", path = "/api")
interface Library {
    @RequestMapping(method = RequestMethod.PUT, value = "/loans/{id}")
    void renew(@PathVariable("id") String id);
}

class Pricing {
    private static final String BASE = "http://pricing:8080";
    private final RestTemplate restTemplate;
    private final WebClient.Builder builder;

    String price(String sku) {
        builder.build().post().uri(BASE + "/prices/{sku}", sku).retrieve();
        return restTemplate.getForObject(String.format("%s/prices/%s", BASE, sku), String.class);
    }
}
'''


def test_java_clients_and_declared_feign_interface() -> None:
    found = sites(JAVA, "src/main/java/com/example/shop/clients/Pricing.java")
    assert found == [
        ("com.example.shop.clients.Library.renew", "feign", "PUT", "/api/loans/{id}", None,
         "/api/loans/{id}"),
        ("com.example.shop.clients.Pricing.price", "webclient", "POST",
         "http://pricing:8080/prices/{sku}", "http://pricing:8080", "/prices/{sku}"),
        ("com.example.shop.clients.Pricing.price", "resttemplate", "GET",
         "http://pricing:8080/prices/{sku}", "http://pricing:8080", "/prices/{sku}"),
    ]
    # the Feign interface's mapped methods send requests: they are no endpoints
    result = parse_file(JAVA.encode(), "Pricing.java", RepoContext())
    assert not [s for s in result.symbols if s.kind == "ENDPOINT"]


KOTLIN = '''
package com.example.loans

class Books(private val client: HttpClient,
            @Value("\\${catalog.url}") private val catalog: String) {
    suspend fun book(isbn: String) = client.get("$catalog/books/$isbn")
    suspend fun add() = client.post("${catalog}/books") { }
}

interface Api {
    @GET("members/{id}/loans")
    fun loans(@Path("id") id: String): Call<List<Loan>>
}
'''


def test_kotlin_templates_ktor_and_retrofit() -> None:
    assert sites(KOTLIN, "src/Books.kt") == [
        ("com.example.loans.Books.book", "ktor", "GET", "${catalog.url}/books/{isbn}",
         "${catalog.url}", "/books/{isbn}"),
        ("com.example.loans.Books.add", "ktor", "POST", "${catalog.url}/books",
         "${catalog.url}", "/books"),
        ("com.example.loans.Api.loans", "retrofit", "GET", "members/{id}/loans", None,
         "/members/{id}/loans"),
    ]


GO = '''
package clients

const base = "http://catalog:8080"

func Fetch(id string) {
	http.Get(base + "/products/" + id)
	url := fmt.Sprintf("%s/orders/%d", os.Getenv("ORDERS_URL"), 7)
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	client.Do(req)
	resty.New().R().SetBody(b).Put(`/stock/` + id)
}
'''


def test_go_net_http_and_resty() -> None:
    got = sites(GO, "clients/c.go")
    assert [(s[1], s[2], s[3], s[5]) for s in got] == [
        ("net/http", "GET", "http://catalog:8080/products/{id}", "/products/{id}"),
        ("net/http", "POST", "${ORDERS_URL}/orders/7", "/orders/7"),
        ("resty", "PUT", "/stock/{id}", "/stock/{id}"),
    ]


def test_a_file_without_clients_is_not_read_again() -> None:
    source = "def f():\n    return get('/x')\n"
    assert sites(source, "a.py") == []


@pytest.mark.parametrize(("parts", "expected"), [
    ([lit("https://api.example.com:443/v1/users/"), param("id")],
     ("https://api.example.com:443", "/v1/users/{id}")),
    ([name("BASE"), lit("/x?y=1")], ("${BASE}", "/x")),
    ([name("BASE")], ("${BASE}", None)),
    ([lit("users/"), param("id")], (None, "/users/{id}")),
])
def test_split_url(parts, expected) -> None:
    assert split_url(parts) == expected


def test_route_segments_of_every_framework_style() -> None:
    for route in ("/users/{id}/orders", "/users/:id/orders", "/users/<int:id>/orders",
                  "/users/*/orders", "users/{id}/orders/"):
        assert segments(route) == ("users", "*", "orders"), route


def test_sample_clients_found(tmp_path: Path) -> None:
    """The sample services' clients are read from their files (the exact lists are in
    the samples' expected graphs)."""
    root = Path(__file__).resolve().parents[2] / "sample_repos" / "ts_express"
    path = "src/clients/usersApi.ts"
    result = parse_file((root / path).read_bytes(), path, RepoContext())
    assert {h.client for h in result.http_calls} == {"axios", "fetch"}


CSHARP = '''
namespace Shop.Clients;
public class Orders {
    private const string Base = "http://orders:8080";
    private readonly HttpClient _http;
    public async Task<string> Get(int id) => await _http.GetStringAsync($"{Base}/api/orders/{id}");
    public async Task Cancel(int id) {
        await _http.PostAsJsonAsync("api/orders/" + id + "/cancel", new {});
        var req = new HttpRequestMessage(HttpMethod.Delete, $"api/orders/{id}");
    }
}
'''


def test_csharp_http_client() -> None:
    assert [(s[0], s[2], s[3]) for s in sites(CSHARP, "Shop/Orders.cs")] == [
        ("Shop.Clients.Orders.Get", "GET", "http://orders:8080/api/orders/{id}"),
        ("Shop.Clients.Orders.Cancel", "POST", "api/orders/{id}/cancel"),
        ("Shop.Clients.Orders.Cancel", "DELETE", "api/orders/{id}"),
    ]


RUST = '''
const BASE: &str = "http://orders:8080";
async fn cancel(client: &reqwest::Client, id: u32) {
    let url = format!("{}/orders/{id}/cancel", BASE);
    client.post(&url).send().await;
    reqwest::get(format!("{BASE}/orders/{}", id)).await;
}
'''


def test_rust_reqwest_and_format() -> None:
    assert [(s[2], s[3], s[5]) for s in sites(RUST, "src/lib.rs")] == [
        ("POST", "http://orders:8080/orders/{id}/cancel", "/orders/{id}/cancel"),
        ("GET", "http://orders:8080/orders/{id}", "/orders/{id}"),
    ]
