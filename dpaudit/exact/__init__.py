"""Exact and symbolic: exact privacy loss of known laws, sympy proofs with a time budget, the
sufficient CDF conditions and divergences decided numerically with error bounds."""
