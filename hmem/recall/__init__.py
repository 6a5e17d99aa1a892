"""The read path in pure Python: question analysis, hybrid scoring, the history rule,
token counting, packing and the context block. Neo4j is reached only through
``hmem.graph.search.FactSearch``; ``hmem.graph`` never imports this package."""

from hmem.recall.engine import QueryEmbedder, Recall
from hmem.recall.models import Hit, MaintenanceResult, SearchResult, SearchTimings
from hmem.recall.scoring import ScoreWeights
from hmem.recall.tokens import count_tokens

__all__ = [
    "Hit",
    "MaintenanceResult",
    "QueryEmbedder",
    "Recall",
    "ScoreWeights",
    "SearchResult",
    "SearchTimings",
    "count_tokens",
]
