"""Raise-site reach: where the reference raises contract errors, and which rules each place implements."""
