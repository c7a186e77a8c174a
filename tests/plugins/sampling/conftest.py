"""Fixtures of the sampling tests: a recording chat model and our sampling server over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpbridge.testing import serving
from tests.servers import sampling_server

from .recording import RecordingChatModel


@pytest.fixture
def recorder() -> RecordingChatModel:
    return RecordingChatModel()


@pytest.fixture(scope="module")
def sampling_url() -> Iterator[str]:
    """Our sampling server over streamable HTTP, one per test module."""
    with serving(sampling_server.build().streamable_http_app()) as url:
        yield url
