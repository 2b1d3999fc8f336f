"""Test inputs built from the contract's seed cases: families, catalogs, policies, resolutions,
weight materializers and sources, estimators, the chain family and whole scenario documents.

Beside the reference, never inside it: the oracle never imports this package.
"""
