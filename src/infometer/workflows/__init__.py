"""Methods built on the measurements (all-pairs scans, benchmark suites, scikit-learn
adapters); they import anything below them.
"""
