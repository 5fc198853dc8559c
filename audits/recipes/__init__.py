"""Paper-neutral audit recipes, open to every paper package; everything paper-specific (the
instance, the budgets, the bound, the wording) comes in as arguments: the global-DP claim and
release proof (``global_dp``), the continual-counter claims and fixed-instance regret run
(``counters``), the LDP report claims (``ldp``) and the curve findings (``verification``).
The registry declares nothing from here.
"""
