"""Benchmarks: `make bench` runs every ``bench/*_bench.py`` module's ``run()`` and writes the
figures, as one flat JSON object, to ``bench/latest.json``."""
