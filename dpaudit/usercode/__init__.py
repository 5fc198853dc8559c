"""Auditing user code: calling conventions and adapters for third-party policies, the privacy
notions a sampled audit targets, neighbour search, local-DP audits and ``audit-policy``'s
driver."""
