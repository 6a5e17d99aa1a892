"""Settings: one object, read once at the edge (CLI, HTTP app) and passed in.

Library code takes a ``Config`` argument and never reads the environment itself.
Every field can be set as ``HMEM_<FIELD>`` (e.g. ``HMEM_NEO4J_URI``) or in a ``.env``
file when the edge asks for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Config"]


class Config(BaseSettings):
    """All of hmem's settings, with safe defaults for a local install."""

    model_config = SettingsConfigDict(
        env_prefix="HMEM_", extra="forbid", frozen=True, validate_default=True
    )

    # -- Neo4j -----------------------------------------------------------------------
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", description="Bolt URI of Neo4j 5.26+")
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = Field(
        None, description="Password; when unset, the local dev server's generated one is used"
    )
    neo4j_database: str = "neo4j"
    neo4j_home: Path = Field(
        Path(".hmem/neo4j"), description="Home of the local Neo4j started by `hmem neo4j start`"
    )

    # -- the fact graph ---------------------------------------------------------------
    embedding_dim: int = Field(384, ge=8, le=8192, description="Dimension of fact embeddings")
    max_fact_chars: int = Field(2000, ge=16, description="Longest fact text accepted")
    max_entities_per_fact: int = Field(32, ge=1)

    neo4j_http_port: int = Field(7474, description="HTTP/Browser port of the local dev server")

    # -- model services (OpenAI-compatible: OpenAI, Ollama, vLLM, llama.cpp, LM Studio) --
    llm_base_url: str | None = Field(None, description="None means the OpenAI API")
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(60.0, gt=0)
    llm_max_retries: int = Field(3, ge=0, le=10)
    llm_response_format: Literal["auto", "json_schema", "json_object"] = "auto"

    embed_provider: Literal["none", "openai", "local"] = Field(
        "none",
        description="none: facts get no vectors (search is lexical + entity only); "
        "openai: any OpenAI-compatible /embeddings endpoint; local: embed_local_dir",
    )
    embed_base_url: str | None = None
    embed_api_key: SecretStr | None = None
    embed_model: str = "text-embedding-3-small"
    embed_local_dir: Path | None = Field(
        None, description="a sentence-embedding model folder (model.onnx + tokenizer.json)"
    )
    embed_batch_size: int = Field(64, ge=1, le=2048)
    embed_timeout_s: float = Field(30.0, gt=0)

    @field_validator("neo4j_uri")
    @classmethod
    def _known_scheme(cls, uri: str) -> str:
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not uri.startswith(schemes):
            raise ValueError(f"neo4j_uri must start with one of {', '.join(schemes)}")
        return uri
