"""The Neo4j store: the only package that talks to Neo4j.

``graph`` never imports ``hmem.extract`` or ``hmem.api``.
"""

from hmem.graph.schema import apply_schema, check_vector_index
from hmem.graph.store import GraphStore

__all__ = ["GraphStore", "apply_schema", "check_vector_index"]
