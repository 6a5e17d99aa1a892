"""Sessions in, facts out: the durable queue, the write pipeline and its worker.

``ingest`` may import ``graph`` and ``extract``; neither imports it.
"""

from hmem.ingest.ingestor import Ingestor
from hmem.ingest.pipeline import AddResult
from hmem.ingest.queue import Job, JobQueue

__all__ = ["AddResult", "Ingestor", "Job", "JobQueue"]
