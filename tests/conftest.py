import os

from hypothesis import HealthCheck, settings

# Reproducible by default (CI runs the same examples every time); set
# HYPOTHESIS_PROFILE=explore to search new examples locally.
settings.register_profile("default", derandomize=True, deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
