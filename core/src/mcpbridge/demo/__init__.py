"""`mcpbridge demo`: sample servers and a scripted chat model."""
