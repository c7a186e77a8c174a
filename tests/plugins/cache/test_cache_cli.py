"""`mcpbridge cache clear`: what it says when there is nothing it can do; the cache's line in
`mcpbridge plugins`."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from mcpbridge_cli import main

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


def write(tmp_path: Path, cache: str, rules: str = "") -> str:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        '[servers.s]\nurl = "http://127.0.0.1:9/mcp"\n\n[servers.files]\nurl = "http://127.0.0.1:9/mcp"\n\n'
        f'[plugins]\nenabled = ["cache"]\n\n[plugins.cache]\n{cache}\n{rules}'
    )
    return str(config)


def clear(*args: str) -> int:
    return main(["cache", "clear", *args])


def test_memory_backend_has_nothing_to_clear_from_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert clear("--config", write(tmp_path, "ttl = 10")) == 0
    assert "the in-memory cache lives inside each agent process" in capsys.readouterr().err


def test_unknown_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert clear("--config", write(tmp_path, ""), "--server", "nope") == 1
    assert "mcpbridge: error: unknown server 'nope'; configured servers: s, files" in capsys.readouterr().err


def test_bad_settings_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert clear("--config", write(tmp_path, "ttl = -1")) == 1
    assert "`plugins.cache.ttl`" in capsys.readouterr().err
    assert clear("--config", str(tmp_path / "missing.toml")) == 1
    assert "not found" in capsys.readouterr().err


def test_clear_is_a_required_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["cache"])
    assert "clear" in capsys.readouterr().err


def test_unreachable_redis_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = write(
        tmp_path,
        f'backend = "redis"\nredis_url = "redis://127.0.0.1:{port}/0?password=pa55word"\nsecret = "s3cret-key"',
    )
    assert clear("--config", config) == 1
    err = capsys.readouterr().err
    assert "mcpbridge: error: could not clear the cache in Redis" in err
    assert "password=***" in err
    assert "pa55word" not in err
    assert "s3cret-key" not in err


def status(tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: str, rules: str = "") -> str:
    """The cache's line under its row in `mcpbridge plugins`."""
    assert main(["plugins", "--config", write(tmp_path, cache, rules)]) == 0
    out = capsys.readouterr().out.splitlines()
    [row] = [i for i, line in enumerate(out) if line.split()[1:2] == ["cache"]]
    return out[row + 1].strip()


RULES = '[[plugins.cache.rules]]\nserver = "s"\n\n[[plugins.cache.rules]]\nserver = "files"\ntool = "read_*"\n'


def test_plugins_says_that_nothing_is_cached_without_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = status(tmp_path, capsys, "ttl = 10")
    assert line == "caches nothing: no [[plugins.cache.rules]] (see docs/plugins/cache.md)"


@pytest.mark.parametrize(
    ("cache", "line"),
    [
        ("", "caches 2 rules: s/*, files/read_*; writes invalidate per partition; memory backend"),
        ('invalidate = "server"', "caches 2 rules: s/*, files/read_*; writes invalidate per server; memory backend"),
        (
            'invalidate = "off"',
            'caches 2 rules: s/*, files/read_*; writes invalidate nothing (invalidate = "off"); memory backend',
        ),
    ],
)
def test_plugins_says_what_the_rules_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: str, line: str
) -> None:
    assert status(tmp_path, capsys, cache, RULES) == line


def test_plugins_shows_the_chain_with_the_cache_innermost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--config", write(tmp_path, "", RULES)]) == 0
    assert "chain (outermost first): cache → claiming → server" in capsys.readouterr().out
