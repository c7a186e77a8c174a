"""`python -m mcpbridge_cli`, as the `mcpbridge` command."""

from mcpbridge_cli.app import main

raise SystemExit(main())
