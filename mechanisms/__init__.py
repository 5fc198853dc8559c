"""Noise primitives of the seed papers (installed as ``dpaudit.mechanisms``).

Each mechanism samples vectorised with an explicit ``numpy.random.Generator`` and, where its
law is known, exposes ``cdf``/``pdf`` and a sympy form.
"""

from dpaudit.mechanisms.beta_perturbation import (
    BetaPerturbation,
    beta_start_phase,
    beta_worst_delta,
)
from dpaudit.mechanisms.counting import BinaryTreeCounter, HybridCounter, tree_nodes_touched
from dpaudit.mechanisms.gauss_perturbation import (
    GaussPerturbation,
    gauss_smallest_count,
    gauss_start_phase,
)
from dpaudit.mechanisms.gaussian import Gaussian, analytic_sigma, classical_sigma
from dpaudit.mechanisms.laplace import Laplace
from dpaudit.mechanisms.lemma15 import Lemma15Perturbation, lemma15_half_width, lemma15_sympy
from dpaudit.mechanisms.privbern import PrivBern
from dpaudit.mechanisms.randomized_response import RandomizedResponse

__all__ = [
    "BetaPerturbation",
    "BinaryTreeCounter",
    "GaussPerturbation",
    "Gaussian",
    "HybridCounter",
    "Laplace",
    "Lemma15Perturbation",
    "PrivBern",
    "RandomizedResponse",
    "analytic_sigma",
    "beta_start_phase",
    "beta_worst_delta",
    "classical_sigma",
    "gauss_smallest_count",
    "gauss_start_phase",
    "lemma15_half_width",
    "lemma15_sympy",
    "tree_nodes_touched",
]
