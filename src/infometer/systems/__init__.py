"""The paper systems (text, models, probes, decision, extract); they import anything below
them.
"""

__all__: list[str] = []  # a layer folder: import from its packages and modules
