"""Settings: one object, read once at the edge (CLI, HTTP app) and passed in.

Library code takes a ``Config`` argument and never reads the environment itself.
Every field can be set as ``HMEM_<FIELD>`` (e.g. ``HMEM_NEO4J_URI``) or in a ``.env``
file when the edge asks for it.

The settings come in sections, read as ``config.neo4j.uri``, ``config.search.w_dense``,
``config.jobs.lease_s``, ... (a section is every field with its prefix: ``neo4j_``,
``search_``, ``job_``, ``api_``, ``llm_``, ``embed_``, ``otel_``). Each field is declared
once, flat, so its documented name (``HMEM_NEO4J_URI``, ``Config(neo4j_uri=...)``) keeps
working; the nested spelling ``HMEM_NEO4J__URI`` is read too. A new setting is a new
field with its section's prefix plus one line in that section's class (a test checks
the two agree).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

__all__ = [
    "ApiSettings",
    "Config",
    "EmbedSettings",
    "JobsSettings",
    "LlmSettings",
    "Neo4jSettings",
    "OtelSettings",
    "SearchSettings",
]

from hmem.config_sections import (
    ENV_PREFIX,
    ApiSettings,
    EmbedSettings,
    JobsSettings,
    LlmSettings,
    Neo4jSettings,
    NestedEnv,
    OtelSettings,
    SearchSettings,
)


class Config(BaseSettings):
    """All of hmem's settings, with safe defaults for a local install."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="forbid",
        frozen=True,
        validate_default=True,
        # an empty variable is unset (docker-compose passes unset ones through as "")
        env_ignore_empty=True,
    )

    # -- Neo4j -----------------------------------------------------------------------
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", description="Bolt URI of Neo4j 5.26+")
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = Field(
        None, description="Password; when unset, the local dev server's generated one is used"
    )
    neo4j_database: str = "neo4j"
    neo4j_connect_timeout_s: float = Field(
        2.0, gt=0, description="Give up opening a connection to Neo4j after this long"
    )
    neo4j_acquire_timeout_s: float = Field(
        10.0,
        gt=0,
        description="Wait this long for a connection from the pool, opening one included "
        "(its Bolt handshake and login can take seconds on a loaded machine); an "
        "unreachable Neo4j still fails after the connect timeout",
    )
    neo4j_retry_s: float = Field(
        0.5,
        ge=0,
        description="Retry a transaction that failed transiently for at most this long. "
        "The driver waits about 1 s (0.8-1.2) before its first retry and 2 s before a "
        "second, so 0.5 means exactly one retry: with Neo4j down a request fails (503) "
        "after about 1 s; at 1.0 a second retry came often enough to take ~3 s",
    )
    neo4j_home: Path = Field(
        Path(".hmem/neo4j"), description="Home of the local Neo4j started by `hmem neo4j start`"
    )

    # -- the fact graph ---------------------------------------------------------------
    embedding_dim: int = Field(384, ge=8, le=8192, description="Dimension of fact embeddings")
    max_fact_chars: int = Field(2000, ge=16, description="Longest fact text accepted")
    max_entities_per_fact: int = Field(32, ge=1)

    neo4j_http_port: int = Field(7474, description="HTTP/Browser port of the local dev server")
    neo4j_version: str = Field(
        "5.26",
        description="Neo4j of `hmem neo4j start`: 5.26 (LTS, default), 2026 (2026.09.0, "
        "Java 21+) or a full version",
    )
    neo4j_tls: Literal["off", "optional"] = Field(
        "off",
        description="Bolt over TLS on the local dev server too (optional: bolt:// and "
        "bolt+ssc:// / neo4j+ssc:// both work), with a self-signed certificate for "
        "127.0.0.1 made by openssl at the first start",
    )

    # -- the read path (docs/retrieval.md) ----------------------------------------------
    search_w_dense: float = Field(0.7, ge=0, description="weight of vector similarity")
    search_w_lexical: float = Field(0.2, ge=0, description="weight of the fulltext score")
    search_w_entity: float = Field(0.1, ge=0, description="weight of entity matches")
    search_w_session: float = Field(
        0.4, ge=0, description="weight of the best first-pass score in the fact's episode"
    )
    search_session_ranks: int = Field(
        20,
        ge=0,
        description="the session share counts in this many first ranks of a search; later "
        "ranks are ordered by the fact's own match",
    )
    search_w_adjacent: float = Field(
        0.3, ge=0, description="weight of the first-pass score of the turn next to the fact"
    )
    search_w_time: float = Field(
        0.3,
        ge=0,
        description="weight of a fact that began in the span of time the question names "
        "('in July 2023', 'on 7 July, 2023')",
    )
    search_w_speaker: float = Field(
        0.13,
        ge=0,
        description="weight of a chat turn said by a person the question names (FactDraft.speaker)",
    )
    search_names_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="the question's vector mixes its embedding as asked (this share) and "
        "without its names (the rest)",
    )
    search_w_recency: float = Field(0.0, ge=0, description="weight of 0.995^hours since use")
    search_w_importance: float = Field(0.0, ge=0, description="weight of importance / 10")
    search_history_boost: float = Field(
        0.05, ge=0, description="added to replaced facts when a question is about the past"
    )
    search_inherit: float = Field(
        0.9,
        ge=0,
        le=1,
        description=(
            "the most a successor inherits of a replaced fact's score when a newer fact "
            "answers about as well (otherwise it takes the whole score)"
        ),
    )
    search_inherit_rival: float = Field(
        0.85,
        ge=0,
        le=1,
        description="a fact that began after a successor and scores this share of the "
        "replaced fact's score is a newer value: the successor then inherits a damped share",
    )
    search_inherit_floor: float = Field(
        0.6,
        ge=0,
        le=1,
        description="the damped share of a successor that does not match the question itself",
    )
    search_exact_max_facts: int = Field(
        20_000,
        ge=0,
        description="users with at most this many vectors get the exact per-user scan; "
        "bigger ones try the HNSW index with over-fetch first (measured crossover)",
    )
    search_index_overfetch: int = Field(20, ge=1, description="index neighbours per wanted hit")
    vector_index_min_facts: int = Field(
        5_000,
        ge=0,
        description="a user with more facts than this has them in the HNSW vector index "
        "(filled when a write passes it); smaller users are searched by the exact scan and "
        "their writes skip the index's update, most of a write's commit (docs/scaling.md)",
    )
    search_filtered_min_facts: int = Field(
        5_000,
        ge=0,
        description="on Neo4j 2026.02+, users with more vectors than this use the in-index "
        "filtered SEARCH; smaller ones the exact scan (measured crossover)",
    )
    search_filtered_overfetch: int = Field(
        2,
        ge=1,
        description="on Neo4j 2026.02+, the filtered SEARCH fetches this many of the user's "
        "nearest per wanted dense candidate, before the time filter (measured: "
        "docs/scaling.md)",
    )
    search_entity_max_facts: int = Field(
        2_000,
        ge=0,
        description="an entity more facts than this mention brings no entity candidates "
        "(walking its mentions is what a big user's search paid most for)",
    )
    search_entity_max_share: float = Field(
        0.5,
        ge=0,
        description="an entity more than this share of the user's facts mention (a chat's "
        "speakers) brings no entity candidates and its name is not asked of the fulltext "
        "index: it tells nothing apart (below it, the name's boost is 1 - share / this)",
    )
    episodic_ttl_days: float = Field(
        90.0, gt=0, description="episodic facts unused this long are closed by `hmem maintain`"
    )

    # -- the HTTP API (`hmem serve`) --------------------------------------------------
    api_host: str = Field("127.0.0.1", description="Bind address; loopback unless you mean it")
    api_port: int = Field(8000, ge=1, le=65535)
    api_max_body_bytes: int = Field(
        1_000_000, ge=1024, description="Larger request bodies are refused with 413"
    )
    api_key_cache_s: float = Field(
        30.0, ge=0, description="How long a verified API key is trusted before re-checking"
    )
    api_key_outage_s: float = Field(
        3600.0,
        ge=0,
        description="While Neo4j is down, a key verified less than this long ago is still "
        "trusted (so background sessions keep being queued)",
    )
    api_request_timeout_s: float = Field(
        25.0,
        gt=0,
        description="Every /v1 request is answered within this (then 503 timeout, with "
        "Retry-After), before a client's usual 30 s gives up; a write answered so may "
        "still land: retry it with the same Idempotency-Key",
    )
    api_search_concurrency: int = Field(
        4,
        ge=1,
        le=256,
        description="Searches run at once per API process; more wait their turn, first "
        "come first served (on a few cores, sharing them among every waiting search made "
        "each one slow: docs/api.md)",
    )
    api_log_json: bool = Field(True, description="One JSON object per log line")
    api_metrics_token: SecretStr | None = Field(
        None,
        description="/metrics (every tenant's counts) needs 'Authorization: Bearer <token>'; "
        "unset, it answers loopback clients only",
    )
    api_worker: bool = Field(
        True, description="Run the background-add worker inside the API process"
    )

    # -- model services (OpenAI-compatible: OpenAI, Ollama, vLLM, llama.cpp, LM Studio) --
    llm_base_url: str | None = Field(None, description="None means the OpenAI API")
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(60.0, gt=0)
    llm_max_retries: int = Field(3, ge=0, le=10)
    llm_response_format: Literal["auto", "json_schema", "json_object"] = "auto"

    embed_provider: Literal["auto", "none", "openai", "local"] = Field(
        "auto",
        description="auto: the local model when it can be had (embed_model_dir, fastembed's "
        "cache, or a download), else no vectors with one line saying what to set; "
        "local: the same, but a missing model is an error; openai: any OpenAI-compatible "
        "/embeddings endpoint (embed_base_url); none: facts get no vectors (search is "
        "lexical + entity only)",
    )
    embed_base_url: str | None = None
    embed_api_key: SecretStr | None = None
    embed_model: str | None = Field(
        None,
        description="the embedding model; default BAAI/bge-small-en-v1.5 (local) or "
        "text-embedding-3-small (openai)",
    )
    embed_model_dir: Path | None = Field(
        None,
        description="a local model folder (ONNX model + tokenizer.json, e.g. a "
        "sentence-transformers export); loaded as it is, never downloaded",
    )
    embed_cache_dir: Path = Field(
        Path("~/.cache/hmem/fastembed"), description="where fastembed keeps downloaded models"
    )
    embed_download: bool = Field(
        True, description="download the local model into embed_cache_dir when it is missing"
    )
    embed_model_check: bool = Field(
        True,
        description="refuse an embedder other than the one the store's vectors were made "
        "with (recorded at first use; `hmem reembed` moves a store)",
    )
    embed_batch_size: int = Field(64, ge=1, le=2048)
    embed_timeout_s: float = Field(30.0, gt=0)

    # -- the write path ---------------------------------------------------------------
    queue_path: Path = Field(
        Path(".hmem/queue.sqlite3"), description="Durable queue of accepted sessions (SQLite)"
    )
    queue_url: str | None = Field(
        None,
        description="A queue every API replica and `hmem worker` shares "
        "(redis://:password@host:6379/0, needs hmem[queue]); unset: the SQLite file "
        "queue_path. A URL without a password is refused unless queue_private is set",
    )
    queue_private: bool = Field(
        False,
        description="The Redis of queue_url is reachable by this deployment only (a "
        "private unix socket or network): start without a password in its URL",
    )
    bookmark_wait_s: float = Field(
        10.0,
        gt=0,
        le=25,
        description="How long a read waits for the Hmem-Bookmark it was sent (then 503); "
        "at most 25 s, below Neo4j's own 30 s bookmark_ready_timeout",
    )
    max_session_chars: int = Field(50_000, ge=100, description="Longest session accepted")
    neighbours_k: int = Field(10, ge=0, le=100, description="Stored facts shown to the extractor")
    infer_max_closures: int = Field(
        3,
        ge=0,
        le=64,
        description="How many facts one inferred write may close (remember's infer, and "
        "each session): a write whose words would close more closes none of them and "
        "returns them as proposals (WriteResult.proposed) for the caller to confirm",
    )
    infer_frame_cosine: float = Field(
        0.80,
        ge=0,
        le=1.0,
        description="Two statements of one subject whose words name different slots are "
        "one slot when their masked frames ('I drink something every morning') embed at "
        "least this close (remember's infer, no model); 0 turns it off. Calibrated for "
        "all-MiniLM-L6-v2 on hmem_bench/updates_dev.jsonl (docs/plain-text.md): "
        "recalibrate for another embedder",
    )
    dedup_cosine: float = Field(
        0.95, gt=0, le=1.0, description="Cosine at which a new fact is a near-duplicate"
    )
    job_lease_s: float = Field(
        20.0,
        gt=0,
        description="A running job's lease, renewed every quarter of it while the job runs: "
        "the job of a worker that died is taken over after at most this",
    )
    job_max_attempts: int = Field(5, ge=1, description="Transient failures before 'failed'")
    profile_enabled: bool = Field(
        False, description="Rewrite a <=120-word profile after each session (a 2nd model call)"
    )
    otel_enabled: bool = Field(
        False,
        description="OpenTelemetry spans for add/search/remember/jobs (needs hmem[otel]); "
        "`hmem serve` then exports as the standard OTEL_* variables say",
    )
    otel_user_id: Literal["hash", "plain", "off"] = Field(
        "hash",
        description="How spans carry the user id: hashed (HMAC keyed with the server "
        "secret), plain, off; with hash or off, HTTP spans name the route template, "
        "never the raw path",
    )
    server_secret: SecretStr | None = Field(
        None,
        description="Key of the keyed hashes hmem keeps (queue idempotency keys and session "
        "ids, span user ids); unset: a random one in `server.secret` beside the queue",
    )
    ner: Literal["auto", "known", "off"] = Field(
        "auto",
        description="Entities of facts written without any (remember, remember_many, "
        "model-free import), found by spaCy: auto = a trained pipeline when installed "
        "(hmem[ner]) plus the user's known names; known = the user's known names only; off",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        nested = NestedEnv(settings_cls, env_ignore_empty=True)
        return init_settings, env_settings, nested, dotenv_settings, file_secret_settings

    # -- the sections: typed views over the flat fields ------------------------------
    @property
    def neo4j(self) -> Neo4jSettings:
        return Neo4jSettings.of(self)

    @property
    def search(self) -> SearchSettings:
        return SearchSettings.of(self)

    @property
    def jobs(self) -> JobsSettings:
        return JobsSettings.of(self)

    @property
    def api(self) -> ApiSettings:
        return ApiSettings.of(self)

    @property
    def llm(self) -> LlmSettings:
        return LlmSettings.of(self)

    @property
    def embed(self) -> EmbedSettings:
        return EmbedSettings.of(self)

    @property
    def otel(self) -> OtelSettings:
        return OtelSettings.of(self)

    @field_validator("neo4j_uri")
    @classmethod
    def _known_scheme(cls, uri: str) -> str:
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not uri.startswith(schemes):
            raise ValueError(f"neo4j_uri must start with one of {', '.join(schemes)}")
        return uri
