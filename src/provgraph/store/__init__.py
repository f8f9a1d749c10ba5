"""Storage: the backend protocol, the embedded Oxigraph backend, the catalog."""
