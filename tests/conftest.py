from hypothesis import settings

# property tests run in CI on a 2-core machine: keep them bounded and deterministic
settings.register_profile("dpaudit", max_examples=60, deadline=None, derandomize=True)
settings.load_profile("dpaudit")
