"""What every layer stands on: the call (`ToolCallRequest` and its chain), the error tree,
redaction, settings, HTTP field rules and the bounds on untrusted input."""
