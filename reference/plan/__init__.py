"""Execution planning (spec 05): the memory plan lives in ``reference.plan.memory``."""
