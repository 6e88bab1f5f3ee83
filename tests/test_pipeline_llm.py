"""The OpenAI-compatible summarizer against a real local HTTP server (tests/fake_llm_server)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.pipeline import pipeline_status, run_pipeline
from graphrag.pipeline.llm import ChatClient, LLMError
from graphrag.pipeline.stages.summarize import OpenAICompatibleSummarizer, make_summarizer
from tests.conftest import context_of
from tests.fake_llm_server import FakeLLMServer
from tests.pipeline_seed import chunk, seed_users_app


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


@pytest.fixture
def seeded(engine, app_name: str, tmp_path: Path):
    return seed_users_app(engine, app_name, tmp_path / "repo")


def _settings(db_url: str, server: FakeLLMServer, model: str):
    return load_settings().with_overrides(database_url=db_url, llm_base_url=server.base_url,
                                          llm_model=model, llm_api_key="sk-test")


def test_llm_summaries_are_stored_and_cached_by_content(engine, db_url, app_name, seeded,
                                                        server, monkeypatch) -> None:
    model = f"fake-{app_name}"  # the cache outlives the app: keep other tests' keys apart
    settings = _settings(db_url, server, model)
    assert isinstance(make_summarizer(settings), OpenAICompatibleSummarizer)
    stats = run_pipeline(context_of(engine, app_name, settings),
                         stages=["extract-snippet", "summarize"])
    assert stats.stages["summarize"] == {"done": 3, "skipped": 0, "failed": 0}
    assert len(server.requests) == 3
    assert server.requests[0]["model"] == model
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    row = chunk(engine, seeded.chunks[f"{seeded.nodes['main']}:code:snippet"])
    assert row["explain_md"] == "Summary: def main():"
    assert row["explain_quality"] == {"method": "llm", "model": model}

    with engine.begin() as conn:  # a re-plan resets the states; the code did not change
        conn.execute(text("UPDATE chunks SET stage_state = '{}', pending = true"
                          " WHERE application_id = :a"), {"a": seeded.app_id})
    stats = run_pipeline(context_of(engine, app_name, settings),
                         stages=["extract-snippet", "summarize"])
    assert stats.stages["summarize"]["done"] == 3
    assert len(server.requests) == 3  # every summary came from summary_cache
    assert chunk(engine, row["id"])["explain_md"] == "Summary: def main():"


def test_http_500_and_timeout_fail_only_their_chunks(engine, db_url, app_name, seeded,
                                                     server) -> None:
    server.fail_on("self.repo.find")  # only in get_user_name's body
    server.stall_on("def main", 3.0)
    summarizer = OpenAICompatibleSummarizer(
        ChatClient(base_url=server.base_url, model=f"fake-{app_name}", timeout=0.5, retries=1,
                   backoff=0.01),
        concurrency=3,
    )
    settings = load_settings().with_overrides(database_url=db_url)
    started = time.monotonic()
    stats = run_pipeline(context_of(engine, app_name, settings), summarizer=summarizer)
    assert time.monotonic() - started < 30
    assert stats.stages["summarize"] == {"done": 1, "skipped": 0, "failed": 2}
    assert stats.chunks == 5

    get = chunk(engine, seeded.chunks[f"{seeded.nodes['get']}:code:snippet"])
    state = get["stage_state"]
    assert state["summarize"]["status"] == "failed"
    assert state["summarize"]["error"].startswith(
        "LLM request failed after 2 attempts: HTTP 500")
    assert "embed" not in state and get["pending"] is False and get["emb"] is None
    main = chunk(engine, seeded.chunks[f"{seeded.nodes['main']}:code:snippet"])
    assert main["stage_state"]["summarize"]["error"] == (
        "LLM request failed after 2 attempts: timed out after 0.5s")
    cls = chunk(engine, seeded.chunks[f"{seeded.nodes['svc']}:code:snippet"])
    assert cls["explain_md"] == "Summary: class UserService(BaseService):"
    assert cls["stage_state"]["link-edges"]["status"] == "done" and cls["dims"] == 384
    errors = pipeline_status(context_of(engine, app_name))["errors"]
    assert sorted(e["error"].split(": ")[1] for e in errors) == [
        "HTTP 500", "timed out after 0.5s"]


def test_client_rejects_4xx_without_retry_and_appends_v1(server) -> None:
    client = ChatClient(base_url=server.base_url.removesuffix("/v1"), model="m", retries=3,
                        backoff=0.01)
    assert client.complete([{"role": "user", "content": "```py\nx = 1\n```"}]) == \
        "Summary: x = 1"
    bad = ChatClient(base_url=server.base_url + "/nope", model="m", retries=3, backoff=0.01)
    with pytest.raises(LLMError, match="rejected: HTTP 404"):
        bad.complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1
