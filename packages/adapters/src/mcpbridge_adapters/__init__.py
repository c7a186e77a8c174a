"""mcpbridge-adapters: a drop-in for langchain-mcp-adapters on mcpbridge.

Change `langchain_mcp_adapters` to `mcpbridge_adapters` in your imports: `client`,
`tools`, `interceptors`, `callbacks`, `sessions`, `prompts`, `resources` and `server_info`
keep their names. What differs: docs/migrating.md, "Change the import".
"""
