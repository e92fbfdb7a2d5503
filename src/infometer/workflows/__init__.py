"""Methods built on the measurements (all-pairs scans, benchmark suites, scikit-learn
adapters); they import anything below them.
"""

__all__: list[str] = []  # a layer folder: import from its packages and modules
