"""`python -m mcpbridge_cache clear ...` (the same as `mcpbridge cache clear ...`)."""

import sys

from mcpbridge_cache.cli import main

sys.exit(main())
