"""The plugin platform: the plugin host (pluggy), the hooks, plugin declarations and chain
ordering, and the toolkit plugins build on (tool selectors, hints, value sources, pauses,
claims)."""
