"""The built-in HTTP client sets: Python, JavaScript/TypeScript, Java, Kotlin, Go, C# and
Rust."""

from __future__ import annotations

from graphrag.parsing.http.clients import VERBS, Factory, HttpClients, Send, verbs
from graphrag.parsing.languages._jvm import CLIENT_ANNOTATIONS

_PKG = "graphrag.parsing.http"


def _module_verbs(client: str, module: str) -> dict[str, Send]:
    """``module.get(url)``... and ``module.request(method, url)``."""
    return {**verbs(client, module + "."),
            module + ".request": Send(client, None, 1, method_arg=0)}


_PYTHON_METHODS = {**verbs("http", ""), "request": Send("http", None, 1, method_arg=0)}

PYTHON = HttpClients(
    syntax=f"{_PKG}.python:PythonSyntax",
    triggers=(b"requests", b"httpx", b"aiohttp", b"urllib", b"urlopen"),
    functions={
        **_module_verbs("requests", "requests"),
        **_module_verbs("httpx", "httpx"),
        "urllib.request.urlopen": Send("urllib", "GET", 0),
        "request.urlopen": Send("urllib", "GET", 0),
        "urlopen": Send("urllib", "GET", 0),
        "urllib.request.Request": Send("urllib", None, 0, method_arg="method"),
    },
    factories={
        "httpx.Client": Factory("httpx", base_arg="base_url"),
        "httpx.AsyncClient": Factory("httpx", base_arg="base_url"),
        "requests.Session": Factory("requests"),
        "requests.session": Factory("requests"),
        "aiohttp.ClientSession": Factory("aiohttp", base_arg="base_url"),
        "ClientSession": Factory("aiohttp", base_arg="base_url"),
        "AsyncClient": Factory("httpx", base_arg="base_url"),
    },
    client_types={"Client": "httpx", "AsyncClient": "httpx", "Session": "requests",
                  "ClientSession": "aiohttp"},
    methods=_PYTHON_METHODS,
    env_readers=frozenset({"os.getenv", "os.environ.get", "getenv", "environ.get"}),
)

_ECMA_FUNCTIONS = {
    "fetch": Send("fetch", None, 0, options_arg=1),
    "window.fetch": Send("fetch", None, 0, options_arg=1),
    "globalThis.fetch": Send("fetch", None, 0, options_arg=1),
    "axios": Send("axios", None, 0, options_arg=0),
    "axios.request": Send("axios", None, "url", options_arg=0),
    **verbs("axios", "axios."),
    **verbs("got", "got."),
    "got": Send("got", None, 0, options_arg=1),
    **verbs("ky", "ky."),
    "ky": Send("ky", None, 0, options_arg=1),
    "$fetch": Send("fetch", None, 0, options_arg=1),
    # AngularJS ``$http({url, method})`` and ``$http.get(url)``
    "$http": Send("angularjs", None, "url", options_arg=0),
    # the ``request`` package: ``request(url, callback)``, ``request.post(url)``
    "request": Send("request", None, 0, options_arg=0),
    **verbs("request", "request."),
}

ECMASCRIPT = HttpClients(
    syntax=f"{_PKG}.ecmascript:EcmaSyntax",
    triggers=(b"fetch", b"axios", b"got", b"ky", b"HttpClient", b"$http", b"'request'",
              b'"request"'),
    functions=_ECMA_FUNCTIONS,
    factories={
        "axios.create": Factory("axios", base_option="baseURL"),
        "got.extend": Factory("got", base_option="prefixUrl"),
        "ky.create": Factory("ky", base_option="prefixUrl"),
        "ky.extend": Factory("ky", base_option="prefixUrl"),
    },
    client_types={"HttpClient": "angular", "AxiosInstance": "axios"},
    methods={**verbs("http", ""), "request": Send("http", None, "url", options_arg=0)},
    instance_names={"http": "angular", "httpClient": "angular", "$http": "angularjs"},
)

_REST_TEMPLATE = {
    "getForObject": Send("resttemplate", "GET"),
    "getForEntity": Send("resttemplate", "GET"),
    "postForObject": Send("resttemplate", "POST"),
    "postForEntity": Send("resttemplate", "POST"),
    "postForLocation": Send("resttemplate", "POST"),
    "patchForObject": Send("resttemplate", "PATCH"),
    "put": Send("resttemplate", "PUT"),
    "delete": Send("resttemplate", "DELETE"),
    "headForHeaders": Send("resttemplate", "HEAD"),
    "optionsForAllow": Send("resttemplate", "OPTIONS"),
    "exchange": Send("resttemplate", None, 0, method_arg=1),
}

_SPRING_MAPPINGS: dict[str, str | None] = {
    "GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT",
    "PatchMapping": "PATCH", "DeleteMapping": "DELETE", "RequestMapping": None,
    "RequestLine": None,
}
_RETROFIT = {verb: verb for verb in VERBS}
_JVM_CHAIN = {"uri": "webclient", "url": "okhttp"}

# Apache HttpClient: ``new HttpGet(url)``... (sent later by ``client.execute``)
_APACHE = {f"Http{verb.title()}": Send("apache-httpclient", verb) for verb in VERBS}

JAVA = HttpClients(
    syntax=f"{_PKG}.jvm:JavaSyntax",
    functions=_APACHE,
    triggers=(b"RestTemplate", b"WebClient", b"FeignClient", b"retrofit", b"okhttp",
              b"OkHttp", b"HttpClient", b"HttpRequest", b"restTemplate", b"webClient",
              b"org.apache.http", b"RestClient"),
    factories={"WebClient.create": Factory("webclient", base_arg=0),
               "RestTemplate": Factory("resttemplate")},
    client_types={"RestTemplate": "resttemplate", "WebClient": "webclient",
                  "TestRestTemplate": "resttemplate", "RestClient": "restclient",
                  "OkHttpClient": "okhttp", "Request.Builder": "okhttp",
                  "WebClient.Builder": "webclient",
                  "HttpRequest": "java.net.http"},
    methods=_REST_TEMPLATE,
    instance_names={"restTemplate": "resttemplate", "webClient": "webclient"},
    chain_urls=_JVM_CHAIN,
    method_annotations={**_SPRING_MAPPINGS, **_RETROFIT},
    client_annotations=CLIENT_ANNOTATIONS,
    env_readers=frozenset({"System.getenv", "System.getProperty", "env.getProperty",
                           "environment.getProperty"}),
)

KOTLIN = HttpClients(
    syntax=f"{_PKG}.jvm:KotlinSyntax",
    triggers=(b"HttpClient", b"RestTemplate", b"WebClient", b"FeignClient", b"retrofit",
              b"okhttp", b"OkHttp", b"ktor", b"restTemplate", b"webClient"),
    factories={"HttpClient": Factory("ktor"), "WebClient.create": Factory("webclient", 0),
               "RestTemplate": Factory("resttemplate")},
    client_types={"HttpClient": "ktor", "RestTemplate": "resttemplate",
                  "WebClient": "webclient", "RestClient": "restclient",
                  "OkHttpClient": "okhttp", "WebClient.Builder": "webclient"},
    methods={**_REST_TEMPLATE, **verbs("ktor", ""),
             "request": Send("ktor", None, 0, method_arg="method")},
    instance_names={"restTemplate": "resttemplate", "webClient": "webclient"},
    chain_urls=_JVM_CHAIN,
    method_annotations={**_SPRING_MAPPINGS, **_RETROFIT},
    client_annotations=CLIENT_ANNOTATIONS,
    env_readers=frozenset({"System.getenv", "System.getProperty"}),
)

GO = HttpClients(
    syntax=f"{_PKG}.go:GoSyntax",
    triggers=(b"http.Get", b"http.Post", b"http.Head", b"http.NewRequest", b"resty",
              b"PostForm"),
    functions={
        "http.Get": Send("net/http", "GET"), "http.Head": Send("net/http", "HEAD"),
        "http.Post": Send("net/http", "POST"), "http.PostForm": Send("net/http", "POST"),
        "http.NewRequest": Send("net/http", None, 1, method_arg=0),
        "http.NewRequestWithContext": Send("net/http", None, 2, method_arg=1),
    },
    factories={"resty.New": Factory("resty")},
    client_types={"resty.Client": "resty", "Client": "resty"},
    methods={**verbs("resty", "", title=True),
             "Execute": Send("resty", None, 1, method_arg=0)},
    instance_names={"R()": "resty"},
    env_readers=frozenset({"os.Getenv"}),
)

_DOTNET_VERBS = {
    **{f"{verb.title()}Async": Send("httpclient", verb) for verb in VERBS},
    **{f"{verb.title()}AsJsonAsync": Send("httpclient", verb) for verb in VERBS},
    **{f"{verb.title()}FromJsonAsync": Send("httpclient", verb) for verb in VERBS},
    "GetStringAsync": Send("httpclient", "GET"), "GetStreamAsync": Send("httpclient", "GET"),
    "GetByteArrayAsync": Send("httpclient", "GET"),
}

CSHARP = HttpClients(
    syntax=f"{_PKG}.csharp:CSharpSyntax",
    triggers=(b"HttpClient", b"HttpRequestMessage"),
    functions={"HttpRequestMessage": Send("httpclient", None, 1, method_arg=0)},
    client_types={"HttpClient": "httpclient"},
    methods=_DOTNET_VERBS,
    env_readers=frozenset({"Environment.GetEnvironmentVariable"}),
)

RUST = HttpClients(
    syntax=f"{_PKG}.rust:RustSyntax",
    triggers=(b"reqwest", b"ureq", b"surf::"),
    functions={**{f"reqwest.{verb.lower()}": Send("reqwest", verb) for verb in VERBS},
               **{f"ureq.{verb.lower()}": Send("ureq", verb) for verb in VERBS}},
    factories={"reqwest.Client.new": Factory("reqwest"), "Client.new": Factory("reqwest"),
               "reqwest.Client.builder": Factory("reqwest"),
               "Client.builder": Factory("reqwest")},
    client_types={"Client": "reqwest"},
    methods={**verbs("reqwest", ""), "request": Send("reqwest", None, 1, method_arg=0)},
    env_readers=frozenset({"std.env.var", "env.var"}),
)

BUILTIN_CLIENTS: dict[str, HttpClients] = {
    "python": PYTHON, "java": JAVA, "kotlin": KOTLIN, "go": GO,
    "typescript": ECMASCRIPT, "tsx": ECMASCRIPT, "javascript": ECMASCRIPT,
    "csharp": CSHARP, "rust": RUST,
}
