"""The measurement families (time series, dynamics, multivariate, generalised, complexity,
channels, stats, exact, truth); they import the ground floor and the estimators.
"""

__all__: list[str] = []  # a layer folder: import from its packages and modules
