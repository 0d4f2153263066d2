"""Run every benchmark (``python -m bench``) or the ones named (``python -m bench runtime``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    names = sorted(
        m.name.removeprefix("bench_")
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if m.name.startswith("bench_")
    )
    chosen = [n for n in names if not argv or n in argv]
    unknown = set(argv) - set(names)
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(sorted(unknown))}; have {names}")
    for name in chosen:
        print(f"\n=== bench {name} ===", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"bench.bench_{name}").main([])
        print(f"--- {name} took {time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
