"""The checks, one package per paper (installed as ``dpaudit.audits``).

Each paper package (``azize_basu_2022/``, ``tossou_dimitrakakis_2016/``, ``wang_zhu_2023/``,
``zheng_et_al_2020/``, ``barbara_lazzaro_pike_burke_2025/``, plus ``baselines/`` and
``textbook/``) holds the paper's checks (modules defining ``AUDITS``: a list of
:class:`dpaudit.engine.AuditSpec`), its figure reproductions (``EXPERIMENTS``), its plottable
perturbations (``CDF_PAIRS``) and its ledger statements (``statements.py``: ``PAPER``,
``PAPER_KEYS``, ``STATEMENTS``). ``recipes/`` holds the paper-neutral recipes. The registry
(:mod:`dpaudit.registry`) discovers every public module; no package imports another.
"""
