"""Reproducible benchmarks: LoCoMo retrieval, BEAM knowledge updates, speed and cost."""
