"""Lax backends: the reference with one family of contract checks disabled, served out of process."""
