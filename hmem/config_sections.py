"""The settings' sections (``config.neo4j``, ``config.search``, ...): typed, read-only
views over ``Config``'s flat fields, and the ``HMEM_<SECTION>__<NAME>`` environment
source. hmem/config.py explains the scheme; this module holds its parts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import EnvSettingsSource

if TYPE_CHECKING:
    from hmem.config import Config

__all__ = [
    "ENV_PREFIX",
    "SECTIONS",
    "ApiSettings",
    "EmbedSettings",
    "JobsSettings",
    "LlmSettings",
    "Neo4jSettings",
    "NestedEnv",
    "OtelSettings",
    "SearchSettings",
]

ENV_PREFIX = "HMEM_"
NESTED = "__"


class _Section(BaseModel):
    """A read-only view of the Config fields that start with ``prefix`` (without it)."""

    # protected_namespaces: llm.model and embed.model_dir are settings, not pydantic's
    model_config = ConfigDict(frozen=True, protected_namespaces=())
    prefix: ClassVar[str]

    @classmethod
    def of(cls, config: Config) -> Self:
        return cls.model_validate({n: getattr(config, cls.prefix + n) for n in cls.model_fields})


class Neo4jSettings(_Section):
    prefix = "neo4j_"
    uri: str
    user: str
    password: SecretStr | None
    database: str
    connect_timeout_s: float
    acquire_timeout_s: float
    retry_s: float
    home: Path
    http_port: int
    version: str
    tls: Literal["off", "optional"]


class SearchSettings(_Section):
    prefix = "search_"
    w_dense: float
    w_lexical: float
    w_entity: float
    w_session: float
    session_ranks: int
    w_adjacent: float
    w_time: float
    w_speaker: float
    names_share: float
    w_recency: float
    w_importance: float
    history_boost: float
    inherit: float
    inherit_rival: float
    inherit_floor: float
    exact_max_facts: int
    index_overfetch: int
    filtered_min_facts: int
    filtered_overfetch: int
    entity_max_facts: int
    entity_max_share: float


class JobsSettings(_Section):
    prefix = "job_"
    lease_s: float
    max_attempts: int


class ApiSettings(_Section):
    prefix = "api_"
    host: str
    port: int
    max_body_bytes: int
    key_cache_s: float
    key_outage_s: float
    search_concurrency: int
    request_timeout_s: float
    log_json: bool
    metrics_token: SecretStr | None
    worker: bool


class LlmSettings(_Section):
    prefix = "llm_"
    base_url: str | None
    api_key: SecretStr | None
    model: str
    timeout_s: float
    max_retries: int
    response_format: Literal["auto", "json_schema", "json_object"]


class EmbedSettings(_Section):
    prefix = "embed_"
    provider: Literal["auto", "none", "openai", "local"]
    base_url: str | None
    api_key: SecretStr | None
    model: str | None
    model_dir: Path | None
    cache_dir: Path
    download: bool
    model_check: bool
    batch_size: int
    timeout_s: float


class OtelSettings(_Section):
    prefix = "otel_"
    enabled: bool
    user_id: Literal["hash", "plain", "off"]


SECTIONS: dict[str, type[_Section]] = {
    "neo4j": Neo4jSettings,
    "search": SearchSettings,
    "jobs": JobsSettings,
    "api": ApiSettings,
    "llm": LlmSettings,
    "embed": EmbedSettings,
    "otel": OtelSettings,
}


class NestedEnv(EnvSettingsSource):
    """``HMEM_<SECTION>__<NAME>`` (e.g. ``HMEM_NEO4J__URI``, ``HMEM_JOBS__LEASE_S``) for
    the flat field ``<prefix><name>``; the flat ``HMEM_NEO4J_URI`` wins when both are set."""

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        fields = self.settings_cls.model_fields
        for key, raw in os.environ.items():
            head, sep, name = key.upper().partition(NESTED)
            if not sep or not head.startswith(ENV_PREFIX) or raw == "":
                continue
            section = SECTIONS.get(head[len(ENV_PREFIX) :].lower())
            field = section.prefix + name.lower() if section else None
            if field is None or field not in fields:
                continue  # an unknown nested name is left alone, as an unknown flat one is
            info: FieldInfo = fields[field]
            found[field] = self.prepare_field_value(field, info, raw, False)
        return found
