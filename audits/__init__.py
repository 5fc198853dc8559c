"""One declarative audit file per checkable name (installed as ``dpaudit.audits``).

Each module defines ``AUDITS``: a list of :class:`dpaudit.engine.AuditSpec`. The registry
(:mod:`dpaudit.registry`) discovers every module here.
"""
