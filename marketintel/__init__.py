"""Process-level glue: settings, the CLI and the supervisor."""
