"""The HTTP bodies that carry a domain type's fields take them from it (hmem/api/schemas.py):
a field of the source reaches the body with its type and default, and nothing else does."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from hmem.api.schemas import AddOut, JobOut, ProfileOut
from hmem.ingest.job import Job
from hmem.models import AddResult, ProfileRecord

T = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_add_out_is_add_result_on_the_wire() -> None:
    result = AddResult(job_id="j1", added=["f1"], related=[("f1", "f0")], prompt_tokens=7)
    out = AddOut.model_validate(result.as_dict())
    wire = out.model_dump(mode="json")
    assert wire["added"] == ["f1"]
    assert wire["related"] == [["f1", "f0"]]
    assert "prompt_tokens" not in wire  # a field kept off the wire
    names = [f.name for f in dataclasses.fields(AddResult)]
    assert list(AddOut.model_fields) == [n for n in names if n in AddOut.model_fields]
    assert AddOut.model_fields["status"].is_required()  # the body's own declaration wins


def test_job_out_shows_what_job_public_shows() -> None:
    job = Job(
        id="j1",
        user_id="u",
        session_id=None,
        observed_at=T,
        source_text="secret words",
        episode_text="secret words",
        refused=[],
        ignored=0,
        status="done",
        attempts=1,
        extraction=None,
        result={"added": ["f1"]},
        error=None,
        created_at=T,
        updated_at=T,
    )
    out = JobOut.model_validate(job.public())
    assert set(JobOut.model_fields) == set(job.public())
    assert out.model_dump(mode="json")["observed_at"] == "2026-01-02T03:04:05Z"
    assert not JobOut.model_fields["session_id"].is_required()


def test_profile_out_is_the_profile_record() -> None:
    out = ProfileOut.model_validate({"text": "likes tea", "updated_at": T, "later": 1})
    assert isinstance(out, ProfileRecord)
    assert out.model_dump() == {"text": "likes tea", "updated_at": T}
