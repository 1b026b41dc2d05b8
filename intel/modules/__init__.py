"""Importing this package registers every implemented module with intel.registry."""
from intel.modules import (  # noqa: F401  (registration side effects)
    bitcoin,
    credit_spreads,
    equity_indices,
    fx_overview,
    inflation,
    market_intelligence,
    market_regime,
    technical_analysis,
    vix,
    yield_curve,
)
