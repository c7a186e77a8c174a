"""The tool layer: an MCP tool as a LangChain tool (`MCPTool`), its input schema checks,
and MCP results as LangChain content; resources and prompts beside them."""
