"""The plugin host: the hooks, plugin declarations and chain ordering, the core's own layers
as built-in plugins, and the per-bridge context every hook gets."""
