"""Trading signals with a measured edge: strategy rules on point-in-time frames (one file each, a registry),
the walk-forward back-test behind each edge estimate, and the `trading_signals` product. Pure: no I/O."""
