"""Market data providers: `sim` (seeded simulation), `replay` (CSV history on the clock) and `live` (keyless
public sources); `base` says what each offers."""
