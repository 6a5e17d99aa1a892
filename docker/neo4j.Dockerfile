# Neo4j 5.26 Community with hmem's plugin (hmem.vector.topk, the exact per-user vector
# scan of the read path, and hmem.vector.set, a vector written as bytes): compiled from the same source that
# `hmem neo4j start` compiles, against this image's own jars, so they always match.
# Without the plugin hmem falls back to plain Cypher (same results, slower).
# Built by docker-compose.yml; for a Neo4j of your own use `hmem neo4j plugin --out DIR`.
ARG NEO4J_IMAGE=neo4j:5.26-community
FROM ${NEO4J_IMAGE} AS neo4j

FROM eclipse-temurin:17-jdk AS plugin
COPY --from=neo4j /var/lib/neo4j/lib /neo4j-lib
COPY hmem/localdb/java/VectorTopK.java /src/VectorTopK.java
RUN javac -nowarn -encoding UTF-8 --release 17 -cp '/neo4j-lib/*' -d /classes /src/VectorTopK.java \
 && jar --create --file /hmem-neo4j.jar -C /classes hmem

FROM neo4j
# Neo4j's image loads every jar in /plugins at start.
COPY --from=plugin /hmem-neo4j.jar /plugins/hmem-neo4j.jar
