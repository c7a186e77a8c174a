"""mcpbridge-adapters: a drop-in for langchain-mcp-adapters on mcpbridge.

Change `langchain_mcp_adapters` to `mcpbridge_adapters` in your imports: `client`,
`tools`, `interceptors`, `callbacks`, `sessions` (and `prompts`, `resources`) keep their
names. What differs: docs/migrating.md, "The drop-in".
"""
