"""The façade (top layer): `MCPBridge`, which ties sessions, tools and plugins together,
what it does when it lists tools (collisions, changed definitions, pins). The
`mcpbridge` command line is a distribution of its own (mcpbridge-cli)."""
