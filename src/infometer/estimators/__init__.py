"""The estimator families (discrete, knn, parametric, binned, matrix, neural, diffusion);
they import the ground floor only.
"""
