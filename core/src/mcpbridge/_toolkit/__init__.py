"""What plugins build on: tool selectors, per-tool hints, values from a run's context,
rounds of server questions, pauses (LangGraph interrupts) and claims on resumed calls."""
