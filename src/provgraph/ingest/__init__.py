"""Ingest: readers (RDF, JSON Lines, text), reification, SHACL validation, the pipeline."""
