"""Trust across sources: confidence scoring (:mod:`.confidence`), predicate semantics from the
ontology graph (:mod:`.policy`), conflict detection in SPARQL with entity resolution
(:mod:`.conflicts`), resolution strategies including truth discovery (:mod:`.resolve`), the
conflict records graph (:mod:`.records`), and the operations ``ProvGraph`` exposes, one job a
module: running detection into the records (:mod:`.run`), reading the conflicts back
(:mod:`.read`), annotating evidence with confidence and status (:mod:`.annotate`) and following
inference chains (:mod:`.chains`). Document relations: :mod:`.relations`.

This package imports nothing from :mod:`provgraph.graph`: ``ProvGraph`` calls into it.
"""
