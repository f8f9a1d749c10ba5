"""Trust across sources: confidence scoring (:mod:`.confidence`), predicate semantics from the
ontology graph (:mod:`.policy`), conflict detection in SPARQL with entity resolution
(:mod:`.conflicts`), resolution strategies including truth discovery (:mod:`.resolve`) and the
conflict records graph (:mod:`.records`).

This package imports nothing from :mod:`provgraph.graph`: ``ProvGraph`` calls into it.
"""
