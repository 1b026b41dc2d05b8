"""One file per area of the interface."""
