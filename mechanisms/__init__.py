"""Noise primitives of the seed papers (installed as ``dpaudit.mechanisms``).

Each mechanism samples vectorised with an explicit ``numpy.random.Generator`` and, where its
law is known, exposes ``cdf``/``pdf`` and a sympy form.
"""

from .lemma15 import Lemma15Perturbation, lemma15_half_width, lemma15_sympy
from .gaussian import Gaussian, analytic_sigma, classical_sigma, gaussian_delta
from .laplace import Laplace
from .privbern import PrivBern
from .randomized_response import RandomizedResponse

__all__ = ["Lemma15Perturbation", "lemma15_half_width", "lemma15_sympy"]
__all__ += ["Gaussian", "Laplace", "PrivBern", "RandomizedResponse", "analytic_sigma",
            "classical_sigma", "gaussian_delta"]
