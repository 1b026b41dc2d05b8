"""How well each module's figures are traced, under replay of real history at a few dates.

    python bench/provenance.py [module ...] [--dates 2008-10-10,2020-03-16] [--verbose]

Prints per module: figures, how many are attributed to named observations / to a few series / only to the
module's whole input list, recomputation errors, figures that move with a series they do not name
(undeclared dependencies) and wording faults (a sign word on a zero, a level with more decimals than its
source). The replay test (tests/intel/test_provenance_replay.py) asserts the last three are zero; the
attribution columns measure how precise the provenance is.
"""
from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "intel"))

from provenance_checks import (  # noqa: E402
    attribution_counts,
    compute,
    precision_errors,
    recompute_errors,
    replay_inputs,
    sign_word_errors,
    undeclared_dependencies,
)

from intel.registry import modules  # noqa: E402

DATES = ("2008-10-10", "2013-06-24", "2020-03-16", "2022-06-17")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--dates", default=",".join(DATES))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    registry = modules()
    names = args.modules or sorted(registry)
    totals = dict.fromkeys(("figures", "observation", "series", "module", "recompute_errors", "undeclared",
                            "wording"), 0)
    started = time.perf_counter()
    print(f"{'module':28} {'date':10} {'figs':>5} {'obs':>4} {'ser':>4} {'mod':>4} {'rec':>4} {'und':>4} {'wrd':>4}")
    for name in names:
        for day in args.dates.split(","):
            module = registry[name]
            frames, bars = replay_inputs(module, date.fromisoformat(day))
            payload = compute(module, frames, bars)
            if payload is None:
                print(f"{name:28} {day:10} insufficient data")
                continue
            counts = attribution_counts(payload)
            errors = recompute_errors(payload)
            undeclared = undeclared_dependencies(module, frames, bars, payload)
            wording = precision_errors(payload) + sign_word_errors(payload)
            row = {"figures": len(payload["provenance"]), **{k: counts[k] for k in ("observation", "series", "module")},
                   "recompute_errors": len(errors), "undeclared": len(undeclared), "wording": len(wording)}
            for key, value in row.items():
                totals[key] += value
            print(f"{name:28} {day:10} {row['figures']:5} {row['observation']:4} {row['series']:4} "
                  f"{row['module']:4} {row['recompute_errors']:4} {row['undeclared']:4} {row['wording']:4}")
            if args.verbose:
                for line in errors + undeclared + wording:
                    print("    " + line)
    print(f"total: {totals} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
