"""Paper-neutral audit recipes: everything paper-specific comes in as arguments: checks,
statements, experiments and twins.
"""
