"""web_fetch as a `-p` user has it: a host in tools.web_fetch.domains is fetched, any other is refused
with the key to set, since nobody is there to ask."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli_process import hermeslite, model_args
from tests.envelope import sent_tool_results
from tests.server import Reply
from tests.tools.web.site import Site, serve


@pytest.fixture
def site() -> Iterator[Site]:
    yield from serve()


def run_p(scripted_server, tmp_path, site: Site, config: str):
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "config.yaml").write_text(config)
    scripted_server.enqueue(Reply.tool_calls([("web_fetch", {"url": site.url("/page")})]), Reply.text("done"))
    args = ["-p", "read the page", "--config", str(tmp_path / "config.yaml"), *model_args(scripted_server)]
    return hermeslite(args, tmp_path / "home", project)


def test_p_fetches_a_listed_host(scripted_server, tmp_path, site):
    config = "tools:\n  web_fetch:\n    allow_private: true\n    domains: ['127.0.0.1']\n"
    done = run_p(scripted_server, tmp_path, site, config)
    assert done.returncode == 0, done.stderr
    [result] = sent_tool_results(scripted_server)
    assert "| Brest | 06:12 |" in result and "SCRIPT-TEXT" not in result
    assert len(site.hosts) == 1


def test_p_refuses_a_host_not_listed_and_says_how_to_permit_it(scripted_server, tmp_path, site):
    done = run_p(scripted_server, tmp_path, site, "tools:\n  web_fetch:\n    allow_private: true\n")
    assert done.returncode == 0, done.stderr
    [result] = sent_tool_results(scripted_server)
    assert result.startswith("error: denied (fetches from 127.0.0.1, which tools.web_fetch.domains does not list)")
    assert "add the host to tools.web_fetch.domains, or set tools.approval: allow" in result
    assert site.hosts == []
