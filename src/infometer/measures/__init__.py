"""The measurement families (time series, dynamics, multivariate, generalised, complexity,
channels, stats, exact, truth); they import the ground floor and the estimators.
"""
