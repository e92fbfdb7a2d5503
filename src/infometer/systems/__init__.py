"""The paper systems (text, models, probes, decision, extract); they import anything below
them.
"""
