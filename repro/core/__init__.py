"""The paper's method and protocol: the model (eq. 3), the losses (eqs. 2, 4), Algorithm 1, the kappa
search, the one way through training, and the split error and Jensen-Shannon divergence (section 5).
JAX lives here; nothing here reads files.
"""
