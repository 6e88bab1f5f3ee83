"""The pages for people (`graphrag serve` at `/`) in a real headless Chromium driven by
Selenium (Debian's ``chromium`` and ``chromium-driver``; ``.ci/run`` installs them).

Two applications as in tests/test_server.py: A (python_fastapi, fully indexed) and B
(js_express, graph only). A key of A logs in once; every page is checked for B's names.
A screenshot of each page type is kept in ``test-artifacts/web/`` (or
``$GRAPHRAG_TEST_ARTIFACTS``). Without a browser the tests fail, unless
``GRAPHRAG_TEST_NO_BROWSER=1`` says this machine has none (then they are skipped)."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from graphrag.config import load_settings
from graphrag.db.apps import delete_app
from graphrag.db.engine import get_engine
from graphrag.db.keys import create_key
from graphrag.graph.queries import details
from graphrag.indexing import index_repository
from graphrag.server.http import ServeConfig, create_app
from graphrag.server.runtime import Runtime
from tests.conftest import REPO_ROOT, SAMPLE_REPOS
from tests.graph_hub import hub_repo
from tests.live_server import free_port, live_server

CHROMIUM = os.environ.get("GRAPHRAG_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GRAPHRAG_TEST_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("GRAPHRAG_TEST_ARTIFACTS") or REPO_ROOT / "test-artifacts" / "web")
SYMBOL = "app.services.orders.OrderService.place_order"
CALLER = "app.api.orders.place_order"
HUB_CALLERS = 400  # callers of one function: more than the graph view draws



class Site:
    def __init__(self, url: str, open_url: str, a: str, b: str, keys: dict[str, str],
                 b_names: list[str], b_ids: list[int], hub: str) -> None:
        self.url, self.open_url, self.a, self.b, self.keys = url, open_url, a, b, keys
        self.b_names, self.b_ids, self.hub = b_names, b_ids, hub


@pytest.fixture(scope="module")
def site(db_url: str, tmp_path_factory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("web-home")
    settings = load_settings().with_overrides(database_url=db_url, home=home)
    engine = get_engine(settings, pool_size=10)
    a, b = f"webA_{os.getpid()}", f"webB_{os.getpid()}"
    index_repository(engine, settings, SAMPLE_REPOS / "python_fastapi", a)
    index_repository(engine, settings, SAMPLE_REPOS / "js_express", b, graph_only=True)
    hub = f"webHub_{os.getpid()}"
    index_repository(engine, settings, hub_repo(tmp_path_factory.mktemp("hub"), HUB_CALLERS),
                     hub, graph_only=True)
    keys = {"a": create_key(engine, [a], "web a")["key"],
            "b": create_key(engine, [b], "web b")["key"]}
    with engine.connect() as conn:
        from graphrag.db.apps import get_app

        b_id = get_app(conn, b).id
        b_nodes = details(conn, b_id, "src/controllers/booksController:list")
    # names of B that appear nowhere in A's sample: the booksController's symbols
    b_names = ["booksController", "AuthorsController"]
    runtime = Runtime(settings, engine)
    port, open_port = free_port(), free_port()
    try:
        with live_server(create_app(ServeConfig(port=port, threads=4), runtime), port) as url, \
                live_server(create_app(ServeConfig(port=open_port, threads=2, no_auth=True,
                                                   mcp=False), runtime), open_port) as open_url:
            yield Site(url, open_url, a, b, keys, b_names, [n["id"] for n in b_nodes], hub)
    finally:
        for name in (a, b, hub):
            delete_app(engine, name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if os.environ.get("GRAPHRAG_TEST_NO_BROWSER") == "1":
        pytest.skip("GRAPHRAG_TEST_NO_BROWSER=1: this machine has no Chromium")
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        pytest.fail(f"no browser: {', '.join(missing)} missing (apt-get install chromium"
                    " chromium-driver, or set GRAPHRAG_TEST_NO_BROWSER=1 to skip)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = Path(os.environ.get("TMPDIR", "/tmp")) / f"graphrag-chromium-{os.getpid()}"
    shutil.rmtree(profile, ignore_errors=True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    driver.implicitly_wait(10)  # a click's page may still be loading when the test looks
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(predicate: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def _login(driver: Any, site: Site, key: str) -> None:
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(site.url + "/login")
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    # the next page load must not cancel the form's POST: wait for the cookie it sets
    assert _wait(lambda: driver.get_cookies() and "/login" not in driver.current_url)


def _shot(driver: Any, name: str) -> None:
    assert driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def _no_b(site: Site, html: str, where: str) -> None:
    for name in [*site.b_names, site.b]:
        assert name not in html, f"{where} shows {name!r} of application B"


# --- tests -------------------------------------------------------------------------------

def test_refused_key_then_login_keeps_the_key_out_of_urls(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    wanted = f"/?q=place+order&app={site.a}"
    browser.get(site.url + wanted)
    assert "/login" in browser.current_url  # no key yet: the login form, then back
    browser.find_element(By.ID, "key").send_keys("grk_not_a_key")
    _shot(browser, "login")
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    message = browser.find_element(By.CSS_SELECTOR, ".error-message").text
    assert message == "unknown or revoked API key"
    assert not browser.get_cookies()
    browser.find_element(By.ID, "key").send_keys(site.keys["a"])
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    assert _wait(lambda: browser.current_url.endswith(wanted)), browser.current_url
    assert browser.find_elements(By.CSS_SELECTOR, "li.result")
    cookie = browser.get_cookies()[0]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and "expiry" not in cookie
    assert site.keys["a"] not in browser.current_url
    # scripts cannot read it
    assert site.keys["a"] not in browser.execute_script("return document.cookie")


def test_search_state_lives_in_the_url(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _login(browser, site, site.keys["a"])
    browser.get(f"{site.url}/?q=order+total+discount&app={site.a}&kinds=METHOD&mode=hybrid")
    items = browser.find_elements(By.CSS_SELECTOR, "li.result")
    assert items
    kinds = {i.find_element(By.CSS_SELECTOR, ".kind").text for i in items}
    assert kinds == {"METHOD"}
    first = items[0]
    assert first.find_element(By.CSS_SELECTOR, "a.symbol").text
    assert re.fullmatch(r"\d+\.\d{3}", first.find_element(By.CSS_SELECTOR, ".score").text)
    assert ".py:" in first.find_element(By.CSS_SELECTOR, ".location").text
    marks = [m.text.lower() for m in browser.find_elements(By.CSS_SELECTOR, "pre.excerpt mark")]
    assert marks and set(marks) <= {"order", "total", "discount"}
    # the filters show the state read from the URL
    assert browser.find_element(By.ID, "q").get_attribute("value") == "order total discount"
    assert [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#kinds option:checked")] \
        == ["METHOD"]
    _shot(browser, "search")


def test_result_to_symbol_to_caller_to_graph(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _login(browser, site, site.keys["a"])
    browser.get(f"{site.url}/?q=place+an+order+for+a+user&app={site.a}&kinds=METHOD")
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "li.result a.symbol")
                if a.text == SYMBOL)
    link.click()
    assert _wait(lambda: "/nodes/" in browser.current_url)
    assert browser.find_element(By.CSS_SELECTOR, "h1").text.endswith(SYMBOL)
    numbers = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "table.code td.ln")]
    assert numbers and numbers[0].isdigit() and int(numbers[1]) == int(numbers[0]) + 1
    assert "def place_order" in browser.find_element(By.CSS_SELECTOR, "table.code").text
    context = browser.find_element(By.ID, "context-text").text
    assert SYMBOL in context and "[SEG=" in context
    _shot(browser, "symbol")
    callers = browser.find_elements(By.CSS_SELECTOR, "section.callers a")
    assert CALLER in [c.text for c in callers]
    next(c for c in callers if c.text == CALLER).click()
    assert _wait(lambda: browser.current_url.endswith(quote(CALLER, safe="/:")))
    callees = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "section.callees a")]
    assert SYMBOL in callees
    assert browser.find_element(By.CSS_SELECTOR, "p.route").text == "POST /orders/"
    browser.find_element(By.CSS_SELECTOR, "a.graph-link").click()
    assert _wait(lambda: "/graph/" in browser.current_url)
    drawn = _wait(lambda: browser.execute_script(
        "return window.graphragGraph ? window.graphragGraph.nodes().length : 0"))
    assert drawn >= 2
    ids = browser.execute_script(
        "return window.graphragGraph.nodes().map(n => n.data('fqn'))")
    assert CALLER in ids and SYMBOL in ids
    # expand the callee: its own neighbours join the drawing
    callee = browser.execute_script(
        f"return window.graphragGraph.nodes().filter(n => n.data('fqn') === '{SYMBOL}')[0].id()")
    browser.execute_script(f"return window.graphragExpand({callee})")
    assert _wait(lambda: browser.execute_script(
        f"return window.graphragGraph.getElementById('{callee}').hasClass('expanded')"))
    assert browser.execute_script("return window.graphragGraph.nodes().length") > drawn
    assert "expanded" in browser.find_element(By.ID, "graph-status").text
    _shot(browser, "graph")
    browser.find_element(By.ID, "panel-open").click()
    assert _wait(lambda: browser.current_url.endswith(quote(SYMBOL, safe="/:")))


def test_keyboard_navigation(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _login(browser, site, site.keys["a"])
    browser.get(site.url + "/")
    # the box has the focus on an empty page: Escape leaves it, "/" comes back to it
    assert browser.switch_to.active_element.get_attribute("id") == "q"
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    assert browser.switch_to.active_element.get_attribute("id") != "q"
    ActionChains(browser).send_keys("/").perform()
    assert browser.switch_to.active_element.get_attribute("id") == "q"
    ActionChains(browser).send_keys("cancel a pending order", Keys.ENTER).perform()
    assert _wait(lambda: "?q=cancel+a+pending+order&mode=hybrid" in browser.current_url), \
        browser.current_url  # empty filters stay out of the URL
    assert browser.switch_to.active_element.get_attribute("id") != "q"
    ActionChains(browser).send_keys("j").perform()
    ActionChains(browser).send_keys("j").perform()
    ActionChains(browser).send_keys("k").perform()
    selected = browser.find_elements(By.CSS_SELECTOR, "li.result.selected")
    assert len(selected) == 1 and selected[0].get_attribute("data-index") == "0"
    target = selected[0].find_element(By.CSS_SELECTOR, "a.symbol").get_attribute("href")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    assert _wait(lambda: browser.current_url == target), browser.current_url


def test_applications_page(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _login(browser, site, site.keys["a"])
    browser.get(site.url + "/apps")
    sections = browser.find_elements(By.CSS_SELECTOR, "section.app")
    assert [s.get_attribute("data-app") for s in sections] == [site.a]
    text = sections[0].text
    assert "Last run" in text and "never" not in text.split("Last run")[1].splitlines()[0]
    assert re.search(r"Files: ok \d+", text)
    python = sections[0].find_element(By.CSS_SELECTOR, "table.call-shares tr[data-lang=python]")
    share = float(python.find_element(By.CSS_SELECTOR, ".call-share").text.rstrip("%"))
    resolved = int(python.find_element(By.CSS_SELECTOR, ".calls-resolved").text)
    missed = dict(re.findall(r"(\w+) (\d+)",
                             python.find_element(By.CSS_SELECTOR, ".calls-unresolved").text))
    inside = sum(int(n) for reason, n in missed.items() if reason != "external")
    assert resolved > 0 and "external" in missed  # the sample calls its code and the stdlib
    assert share == round(100 * resolved / (resolved + inside), 1)
    stages = [r.text.split()[0] for r in sections[0].find_elements(By.CSS_SELECTOR,
                                                                    "table.stages tr")[1:]]
    assert "embed" in stages
    _shot(browser, "applications")


def test_a_key_of_a_never_sees_b(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _login(browser, site, site.keys["a"])
    for path in ["/", "/apps", "/?q=list+books", "/?q=controller&source=all",
                 f"/apps/{site.a}/graph/{SYMBOL}?depth=2&kinds=CALLS&kinds=CONTAINS"]:
        browser.get(site.url + path)
        _no_b(site, browser.page_source, path)
    # B named outright: refused with the API's message, none of B's symbols shown
    for path in [f"/apps/{site.b}/nodes/src/controllers/booksController:list",
                 f"/apps/{site.b}/graph/src/controllers/booksController:list",
                 f"/?q=books&app={site.b}", f"/apps/{site.b}/documents"]:
        browser.get(site.url + path)
        assert browser.find_element(By.CSS_SELECTOR, "h1").text == "Error 403"
        message = browser.find_element(By.CSS_SELECTOR, ".error-message").text
        assert message == f"application {site.b!r} is not one this caller may use"
        for name in site.b_names:
            assert name not in browser.page_source
    _shot(browser, "error")
    # B's node ids through A's application: not found, nothing of the node told
    with httpx.Client(base_url=site.url, cookies={"graphrag_key": site.keys["a"]}) as c:
        for node_id in site.b_ids:
            r = c.get("/web/graph.json", params={"app": site.a, "node": node_id})
            assert r.status_code == 404, r.text
            _no_b(site, r.text, "graph.json")


def test_pages_answer_errors_like_the_api(site: Site) -> None:
    key = site.keys["a"]
    with httpx.Client(base_url=site.url, cookies={"graphrag_key": key}, timeout=60) as web, \
            httpx.Client(base_url=site.url, timeout=60,
                         headers={"Authorization": f"Bearer {key}"}) as api:
        page = web.get(f"/apps/{site.a}/nodes/app.services.orders.NoSuchThing")
        answer = api.get(f"/v1/apps/{site.a}/nodes/app.services.orders.NoSuchThing")
        assert page.status_code == answer.status_code == 404
        message = answer.json()["error"]["message"]
        assert _error_message(page.text) == message
        bad = web.get(f"/apps/{site.a}/graph/{SYMBOL}", params={"depth": 3})
        assert bad.status_code == 400 and "depth must be between 1 and 2" in bad.text
        bad = web.get(f"/apps/{site.a}/graph/{SYMBOL}", params={"depth": "two"})
        assert bad.status_code == 422 and bad.headers["content-type"].startswith("text/html")
        assert _error_message(bad.text).startswith("depth: ")
        # the API keeps its JSON answer for a malformed request
        assert api.post("/v1/search", json={"query": "x", "top_k": "many"}).json()["error"][
            "code"] == "invalid_request"
        assert page.headers["content-security-policy"].startswith("default-src 'self'")
    # a login form posted from another site is refused (no cookie set)
    with httpx.Client(base_url=site.url) as anon:
        r = anon.post("/login", data={"key": key, "next": "/"},
                      headers={"Origin": "http://evil.example"})
        assert r.status_code == 403 and "set-cookie" not in r.headers
        r = anon.post("/login", data={"key": key, "next": "//evil.example/"},
                      headers={"Origin": site.url})
        assert r.status_code == 303 and r.headers["location"] == "/"
    # without a key: to the login form, never a page of data
    with httpx.Client(base_url=site.url) as anon:
        r = anon.get(f"/apps/{site.a}/nodes/{SYMBOL}")
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
        assert anon.get("/web/graph.json", params={"app": site.a, "node": 1}).status_code == 401
    # --no-auth on loopback: pages without a key, as the API
    with httpx.Client(base_url=site.open_url, timeout=60) as c:
        r = c.get(f"/apps/{site.a}/nodes/{SYMBOL}")
        assert r.status_code == 200 and "def place_order" in r.text
        assert "Log out" not in r.text


def test_graph_view_never_draws_more_than_its_budget(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=site.open_url, timeout=60) as c:
        page = c.get(f"/apps/{site.hub}/graph/hub.core.hub")
        assert page.status_code == 200
        caller = c.get(f"/v1/apps/{site.hub}/nodes/hub.users_0.caller_0").json()["nodes"][0]
        near = c.get("/web/graph.json", params={"app": site.hub, "node": caller["id"],
                                                "depth": 2}).json()
    # depth 2 from one caller reaches the hub and through it every other caller
    assert len(near["nodes"]) == 300 and near["truncated"]
    assert near["omitted"] == HUB_CALLERS + 1 - 300
    browser.get(f"{site.open_url}/apps/{site.hub}/graph/hub.core.hub?kinds=CALLS")
    drawn = _wait(lambda: browser.execute_script(
        "return window.graphragGraph ? window.graphragGraph.nodes().length : 0"))
    assert drawn == 300
    status = browser.find_element(By.ID, "graph-status").text
    assert f"{HUB_CALLERS + 1 - 300} more neighbours not drawn" in status
    _shot(browser, "graph-budget")
    # a click on a drawn caller adds nothing past the budget, and says so
    some = browser.execute_script(
        "return window.graphragGraph.nodes().filter(n => n.data('centre') === 0)[0].id()")
    browser.execute_script(f"return window.graphragExpand({some})")
    assert _wait(lambda: "at most 300" in browser.find_element(By.ID, "graph-status").text)
    assert browser.execute_script("return window.graphragGraph.nodes().length") == 300


def test_documents_pages(site: Site, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _login(browser, site, site.keys["a"])
    browser.get(f"{site.url}/apps/{site.a}/documents")
    links = browser.find_elements(By.CSS_SELECTOR, "table.documents a")
    assert links, browser.page_source[-3000:]
    _shot(browser, "documents")
    links[0].click()
    assert _wait(lambda: re.search(r"/documents/\d+$", browser.current_url))
    pages = browser.find_elements(By.CSS_SELECTOR, "section.page")
    assert pages and "[SEG=" in pages[0].text
    _shot(browser, "document")
    seg = re.search(r"\[SEG=(\d+:\d+)\]", pages[0].text).group(1)
    filename = browser.find_element(By.CSS_SELECTOR, "h1").text
    # the citations view: an answer citing that segment, and one id of nothing
    browser.get(f"{site.url}/apps/{site.a}/cite")
    browser.find_element(By.ID, "answer").send_keys(
        f"An order-management API [SEG={seg}] [SEG=999999:0]")
    browser.find_element(By.CSS_SELECTOR, "form.cite button").click()
    cited = browser.find_element(By.CSS_SELECTOR, "section.cited li")
    assert filename in cited.text and f"[SEG={seg}]" in cited.text
    assert "1 ids not in" in browser.find_element(By.CSS_SELECTOR, "main").text
    _shot(browser, "citations")
    # a symbol the document names lists it among its mentions
    browser.get(f"{site.url}/apps/{site.a}/nodes/app.repositories.base.BaseRepository")
    mentions = browser.find_elements(By.CSS_SELECTOR, "section.mentions li")
    assert any("README.md" in m.text for m in mentions), [m.text for m in mentions]
    # ... and the mention opens the document at the section that names it
    mention = next(m for m in mentions if "README.md" in m.text)
    mention.find_element(By.TAG_NAME, "a").click()
    assert _wait(lambda: re.search(r"/documents/\d+\?segment=\d+", browser.current_url))
    assert "BaseRepository" in browser.find_element(By.CSS_SELECTOR, "section.page").text
    # a document hit in the search results opens the same way
    browser.get(f"{site.url}/?q=order+management+API+readme&app={site.a}&source=doc")
    doc_hits = browser.find_elements(By.CSS_SELECTOR, "#results a.symbol[href*='/segments/']")
    assert doc_hits, browser.page_source[-2000:]
    doc_hits[0].click()
    assert _wait(lambda: re.search(r"/documents/\d+\?segment=\d+", browser.current_url))
    assert browser.find_elements(By.CSS_SELECTOR, "section.page")


def test_static_assets_are_served_from_the_package(site: Site) -> None:
    with httpx.Client(base_url=site.url) as c:
        lib = c.get("/web/static/vendor/cytoscape/cytoscape.min.js")
        assert lib.status_code == 200 and len(lib.content) > 100_000
        assert c.get("/web/static/vendor/cytoscape/LICENSE").status_code == 200


def _error_message(page: str) -> str:
    import html

    found = re.search(r'<p class="error-message"[^>]*>(.*?)</p>', page, re.S)
    assert found, page
    return html.unescape(found.group(1))
