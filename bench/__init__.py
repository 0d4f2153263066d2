"""Benchmarks: each ``bench_*.py`` module here has a ``main(argv) -> None`` that prints figures."""
