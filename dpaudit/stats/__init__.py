"""Statistics and evidence: claim and verdict types, evidence, event families, the one
sampled-bound engine, the black-box auditor and seeded generators."""
