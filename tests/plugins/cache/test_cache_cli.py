"""`mcpbridge cache clear`: what it says when there is nothing it can do."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from mcpbridge._cli import main


def write(tmp_path: Path, cache: str) -> str:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(f'[servers.s]\nurl = "http://127.0.0.1:9/mcp"\n\n[plugins.cache]\n{cache}\n')
    return str(config)


def clear(*args: str) -> int:
    return main(["cache", "clear", *args])


def test_memory_backend_has_nothing_to_clear_from_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert clear("--config", write(tmp_path, "ttl = 10")) == 0
    assert "the in-memory cache lives inside each agent process" in capsys.readouterr().err


def test_unknown_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert clear("--config", write(tmp_path, ""), "--server", "nope") == 1
    assert "mcpbridge: error: unknown server 'nope'; configured servers: s" in capsys.readouterr().err


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
    config = write(tmp_path, f'backend = "redis"\nredis_url = "redis://127.0.0.1:{port}/0?password=pa55word"')
    assert clear("--config", config) == 1
    err = capsys.readouterr().err
    assert "mcpbridge: error: could not clear the cache in Redis" in err
    assert "password=***" in err
    assert "pa55word" not in err
