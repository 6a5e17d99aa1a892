"""Prometheus metrics: the eight dials of memory health, plus request metrics.

The dials (names as exported; rates are ratios of counters, taken in PromQL):

1. write-op mix           ``hmem_write_ops_total{op}``: added, superseded, merged, related,
                          skipped, refused
2. memories per user      ``hmem_memories_per_user{stat=p50|p95|max}``, ``hmem_users``,
                          ``hmem_current_facts`` (read from Neo4j at scrape, cached)
3. injection rate         ``hmem_policy_refusals_total{kind}`` and
                          ``hmem_ignored_source_messages_total`` over ``hmem_write_requests_total``
4. contradiction rate     ``hmem_supersessions_total{reason=contradiction}`` over
                          ``hmem_write_ops_total{op=added}``; of them read from the words
                          (``remember``'s infer): ``hmem_inferred_closures_total{reason}``
5. extraction latency     ``hmem_extraction_duration_seconds``
6. read latency           ``hmem_read_duration_seconds{op}``
7. correction rate        ``hmem_corrections_total{kind=user_edit|restore|retraction|erase_fact}``
8. deletion timeliness    ``hmem_erasure_duration_seconds{scope}`` (request to proof that
                          nothing remains) and ``hmem_erasures_total{scope}``

Labels never carry a user id, a tenant or any text: cardinality stays bounded and the
metrics endpoint leaks nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from hmem.ingest import AddResult, Job
from hmem.models import WriteResult

__all__ = ["Metrics"]

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_SLOW = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


class _StoreGauges(Collector):
    """Reads aggregate counts at scrape time, at most once per ``ttl_s``."""

    def __init__(self, read: Callable[[], dict[str, int]], ttl_s: float = 30.0) -> None:
        self._read = read
        self._ttl = ttl_s
        self._lock = threading.Lock()
        self._cached: tuple[float, dict[str, int]] | None = None

    def _stats(self) -> dict[str, int] | None:
        with self._lock:
            now = time.monotonic()
            if self._cached is None or now - self._cached[0] > self._ttl:
                try:
                    self._cached = (now, self._read())
                except Exception:  # a scrape must not fail because Neo4j blinked
                    return self._cached[1] if self._cached else None
            return self._cached[1]

    def collect(self) -> Iterator[Metric]:
        stats = self._stats()
        if not stats:  # None: Neo4j unreachable; {}: the app has no driver yet
            return
        yield GaugeMetricFamily("hmem_users", "Users with a root node", value=stats["users"])
        yield GaugeMetricFamily(
            "hmem_vector_index_users",
            "Users whose facts the vector index holds (more than vector_index_min_facts)",
            value=stats["indexed_users"],
        )
        yield GaugeMetricFamily(
            "hmem_current_facts", "Facts believed and true now", value=stats["facts"]
        )
        per_user = GaugeMetricFamily(
            "hmem_memories_per_user", "Current facts per user", labels=["stat"]
        )
        for stat in ("p50", "p95", "max"):
            per_user.add_metric([stat], stats[f"{stat}_per_user"])
        yield per_user


class Metrics:
    """One registry per app (tests build many apps in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "hmem_http_requests", "HTTP requests", ["method", "route", "status"], registry=r
        )
        self.request_seconds = Histogram(
            "hmem_http_request_duration_seconds",
            "HTTP request latency",
            ["method", "route"],
            buckets=_FAST,
            registry=r,
        )
        self.write_requests = Counter(
            "hmem_write_requests", "Write requests accepted", ["path"], registry=r
        )
        self.write_ops = Counter("hmem_write_ops", "Write operations by kind", ["op"], registry=r)
        self.policy_refusals = Counter(
            "hmem_policy_refusals", "Inputs refused by the write policy", ["kind"], registry=r
        )
        self.ignored_sources = Counter(
            "hmem_ignored_source_messages",
            "Messages not from the user (assistant, tool): never a source of facts",
            registry=r,
        )
        self.supersessions = Counter(
            "hmem_supersessions", "Facts closed by a successor", ["reason"], registry=r
        )
        self.inferred_closures = Counter(
            "hmem_inferred_closures",
            "Facts closed by a text write's words (remember's infer), by reason",
            ["reason"],
            registry=r,
        )
        self.extraction_seconds = Histogram(
            "hmem_extraction_duration_seconds",
            "Time from an accepted session to its facts written",
            buckets=_SLOW,
            registry=r,
        )
        self.read_seconds = Histogram(
            "hmem_read_duration_seconds", "Read latency", ["op"], buckets=_FAST, registry=r
        )
        self.corrections = Counter(
            "hmem_corrections", "User corrections of their memory", ["kind"], registry=r
        )
        self.erasures = Counter("hmem_erasures", "Completed erasures", ["scope"], registry=r)
        self.erasure_seconds = Histogram(
            "hmem_erasure_duration_seconds",
            "Time from an erasure request to proof that nothing remains",
            ["scope"],
            buckets=_FAST,
            registry=r,
        )

    def watch_store(self, read: Callable[[], dict[str, int]], ttl_s: float = 30.0) -> None:
        self.registry.register(_StoreGauges(read, ttl_s))

    def count_session(self, job: Job, result: AddResult) -> None:
        """One completed session (sync or background): its operation mix, refusals,
        ignored non-user messages, supersessions by reason, and extraction time."""
        if result.replayed:
            return
        self.ignored_sources.inc(job.ignored)
        for kind in result.refused:
            self.policy_refusals.labels(kind).inc()
        for op, n in {
            "added": len(result.added),
            "superseded": len(result.superseded),
            "merged": len(result.merged),
            "related": len(result.related),
            "skipped": result.skipped,
            "refused": len(result.refused),
        }.items():
            if n:
                self.write_ops.labels(op).inc(n)
        for reason in result.superseded_reasons.values():
            self.supersessions.labels(reason).inc()
        self.extraction_seconds.observe(result.total_seconds)

    def count_inferred(self, result: WriteResult) -> None:
        """The closures a text write read from its words (``remember``'s infer)."""
        for link in result.inferred:
            self.inferred_closures.labels(link.reason.value).inc()

    def count_write(self, path: str, result: WriteResult, reasons: dict[str, str]) -> None:
        """Record one write: its operation mix and, per superseded id, why."""
        self.write_requests.labels(path).inc()
        for op, n in result.counts().items():
            if n:
                self.write_ops.labels(op).inc(n)
        for kind in result.refused:
            self.policy_refusals.labels(kind).inc()
        for old in result.superseded:
            reason = reasons.get(old, "contradiction")
            self.supersessions.labels(reason).inc()
            if reason == "user_edit":
                self.corrections.labels("user_edit").inc()
