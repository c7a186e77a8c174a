"""`python -m mcpbridge_events inspect`."""

import sys

from mcpbridge_events.inspector import main

sys.exit(main())
