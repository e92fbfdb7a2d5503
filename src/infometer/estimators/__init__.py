"""The estimator families (discrete, knn, parametric, binned, matrix, neural, diffusion);
they import the ground floor only.
"""

__all__: list[str] = []  # a layer folder: import from its packages and modules
