"""Benchmarks, run by hand (CI never times anything)."""
