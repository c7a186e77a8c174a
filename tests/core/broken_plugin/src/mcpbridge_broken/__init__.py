"""Fails on import, the way a plugin with a missing dependency does."""

import mcpbridge_dependency_that_is_not_installed  # noqa: F401
