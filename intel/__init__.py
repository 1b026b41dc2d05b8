"""The Dagster-free core: catalog, providers, clock, registry and pure computations (no I/O)."""
