"""Project test configuration: Hypothesis profiles come from one place."""

from strategies.profiles import register_profiles

register_profiles()
