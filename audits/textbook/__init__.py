"""Textbook mechanisms: Laplace, Gaussian (analytic calibration), randomized response: checks,
statements, experiments and twins.
"""
