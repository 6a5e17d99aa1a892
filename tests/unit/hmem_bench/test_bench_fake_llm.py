"""The benchmark's fake model server over real HTTP: answers by schema name, counts."""

from __future__ import annotations

import json

import openai

from hmem_bench.fake_llm import FakeModelServer, SessionScript


def test_extraction_answers_with_the_scripted_facts_and_counts_calls() -> None:
    with FakeModelServer(embedding_dim=8) as fake:
        fake.script = SessionScript(["Ana"], [("Ana", "Ana adopted a cat named Miso.")])
        client = openai.OpenAI(base_url=fake.base_url, api_key=fake.api_key)
        reply = client.chat.completions.create(
            model="fake",
            messages=[{"role": "user", "content": "Ana: I adopted a cat."}],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "extraction", "schema": {"type": "object"}},
            },
        )
        facts = json.loads(reply.choices[0].message.content or "{}")["facts"]
        assert facts[0]["text"] == "Ana adopted a cat named Miso."
        vectors = client.embeddings.create(model="fake", input=["a", "b"]).data
        assert len(vectors) == 2 and len(vectors[0].embedding) == 8
        assert (fake.chat_calls, fake.embedding_calls, fake.by_schema) == (1, 1, {"extraction": 1})
        client.close()


def test_graphiti_schemas_get_valid_shapes() -> None:
    with FakeModelServer() as fake:
        fake.script = SessionScript(["Ana", "Ben"], [("Ana", "Ana met Ben in Paris.")])
        assert [
            e["name"] for e in fake._answer("ExtractedEntities", {}, "")["extracted_entities"]
        ] == [
            "Ana",
            "Ben",
            "Paris",
        ]
        edges = fake._answer("ExtractedEdges", {}, "")["edges"]
        assert edges[0]["target_entity_name"] == "Ben"
        prompt = '[{"id": 0, "name": "Ana"}, {"id": 1, "name": "Ben"}]'
        ids = [r["id"] for r in fake._answer("NodeResolutions", {}, prompt)["entity_resolutions"]]
        assert ids == [0, 1]
