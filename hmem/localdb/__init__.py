"""A real Neo4j 5.26 LTS Community server for development and CI, without Docker.

The jars come from Maven Central (``pom.xml`` beside this file, run by Maven once and
cached); the server runs from them with a generated config: loopback only, auth on
with a generated password, small memory. Users with Docker use ``docker-compose.yml``.
"""

from hmem.localdb.server import (
    TX_LOG_SETTINGS,
    LocalNeo4j,
    LocalNeo4jError,
    Terminated,
    stop_on_signals,
)

__all__ = ["TX_LOG_SETTINGS", "LocalNeo4j", "LocalNeo4jError", "Terminated", "stop_on_signals"]
