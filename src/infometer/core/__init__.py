"""The ground floor: shared services (estimate, data, validation, registry, the dispatcher,
uncertainty, resampling, progress, plots, training, parallel); imports nothing above it.
"""
