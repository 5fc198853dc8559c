"""Mechanisms whose bug shows as a non-finite or variable-length output, each beside its
correct twin, for ``python -m dpaudit audit examples.outcomes.MODULE:OBJECT`` (from the
repository root).

Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026, "Privacy in Theory, Bugs in Practice:
Grey-Box Auditing of Differential Privacy Libraries") found NaN injection in five libraries and
domain inference in two. dpaudit reads NaN, +inf and -inf as atoms of the output law and a
variable-length output through its length (``docs/auditor.md``, "Non-finite and ragged
outputs"), so each planted bug is VIOLATED with its witness event, and each twin CONSISTENT.

==================  ====================================  ==============================
module              planted bug (object)                  correct twin
==================  ====================================  ==============================
``clipped_sum``     NaN survives ``np.clip``              NaN records dropped
                    (``NaNClippedSum``)                   (``ClippedSum``)
``empty_mean``      mean of an empty group is NaN         empty group's mean is public
                    (``EmptyGroupMean``)                  (``GroupMean``)
``per_class``       one count per class found             counts over the public classes
                    (``CountsOfClassesFound``); missing   (``PublicClassCounts``)
                    classes padded with NaN
                    (``NaNPaddedCounts``)
``overflow``        product overflows to +inf             log-space geometric mean
                    (``ProductGeometricMean``)            (``LogGeometricMean``)
==================  ====================================  ==============================

Every object follows the ``audit`` protocol (``docs/auditor.md``, "The protocol"): a vectorised
``sample(data, size, rng)``, the claim ``epsilon`` and ``delta``, and ``neighbours``.
"""
