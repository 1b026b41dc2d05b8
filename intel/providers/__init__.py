"""Market data providers: `sim` (seeded simulation) and `replay` (CSV history on the clock)."""
