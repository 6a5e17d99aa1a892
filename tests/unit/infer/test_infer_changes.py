"""Changes read from the words (hmem.infer.changes), the MCP line of a replaced fact,
and the /metrics counter of inferred closures: no Neo4j."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hmem.api.metrics import Metrics
from hmem.faces.mcp_server import format_hit
from hmem.infer.changes import decide, read_claims
from hmem.models import (
    Fact,
    HistoryStep,
    InferredLink,
    SupersedeReason,
    SupersessionLink,
    WriteResult,
)
from hmem.recall.models import Hit

R = SupersedeReason


@pytest.mark.parametrize(
    ("new", "old", "reason"),
    [
        (
            "Maya moved from Paris to Berlin in October 2026.",
            "Maya lives in Paris.",
            R.CONTRADICTION,
        ),
        ("I started a new job at Stripe in March 2026.", "I work at Google.", R.CONTRADICTION),
        ("I have three kids now.", "I have two kids.", R.CONTRADICTION),
        ("I am now pescatarian.", "I am vegetarian.", R.CONTRADICTION),
        ("Actually, I have three kids, not two.", "I have two kids.", R.USER_EDIT),
        ("My dog Rex passed away last week.", "I have a dog named Rex.", R.ENDED),
        ("I broke up with Alex.", "I am dating Alex.", R.ENDED),
        ("I quit my job.", "I work at Google.", R.ENDED),
        ("I moved to Kreuzberg Berlin.", "I live in Berlin.", R.REFINEMENT),
        ("Lena: I just moved to Seattle!", "Lena: I live in Boston.", R.CONTRADICTION),
        ("Priya's cat Miso died last night.", "Priya has a cat named Miso.", R.ENDED),
        # issue 47: changes in other words, values before their slot, ordinals, switches
        ("Bo is what I go by these days.", "My name is Ada.", R.CONTRADICTION),
        ("Call me Bo from now on.", "I'm called Ada.", R.CONTRADICTION),
        ("Teal is my favourite colour now.", "My favourite colour is red.", R.CONTRADICTION),
        ("My favourite food has changed to pho.", "Ramen is my favorite food.", R.CONTRADICTION),
        ("Ines had her third child.", "Ines has two children.", R.CONTRADICTION),
        (
            "I switched to tea; I no longer drink coffee.",
            "I drink coffee every morning.",
            R.CONTRADICTION,
        ),
        (
            "Correction: my birthday is actually May 13, not May 3.",
            "My birthday is May 3.",
            R.USER_EDIT,
        ),
        ("Rui just moved to Ghent.", "Rui moved from Oslo to Leeds last month.", R.CONTRADICTION),
        ("Mia no longer lives in Rome.", "Mia lives in Rome.", R.ENDED),
        ("Rex passed away last week.", "I have a dog named Rex.", R.ENDED),
        # read by the parse (hmem.slots.parsed); ", not my old name" with "now" is a change
        ("I'm Wren now, not my old name.", "My name is Ada.", R.CONTRADICTION),
        ("Everyone at work knows me as Teo these days.", "People call me Ada.", R.CONTRADICTION),
        ("The fruit I like most is papaya now.", "Mango is my favourite fruit.", R.CONTRADICTION),
        ("Sad news: Kiwi died last night.", "We have a parrot called Kiwi.", R.ENDED),
        ("Our third baby was born this week.", "We have two kids.", R.CONTRADICTION),
    ],
)
def test_changes_that_close(new: str, old: str, reason: SupersedeReason) -> None:
    a, b = read_claims([new, old])
    decision = decide(a, b)
    assert decision is not None and decision.op == "supersede", (new, old)
    assert decision.reason is reason and decision.cue


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Tom's sister moved to Madrid.", "I live in Paris."),
        ("My sister moved to Madrid.", "I live in Paris."),
        ("My sister quit her job.", "I work at Google."),
        ("I started playing padel too.", "I play tennis every week."),
        ("I also work at a bar on weekends.", "I work at Google."),
        ("We adopted a puppy called Bella.", "I have a dog named Rex."),
        ("I have a meeting on Friday.", "I have a meeting tomorrow."),
        ("She moved to Rome.", "I live in Paris."),
        # an ending ends what its own clause names, not a word of the rest
        (
            "Priya lost her job but used it to open her own pottery studio.",
            "Priya runs a small pottery studio downtown.",
        ),
        ("Priya has recently graduated.", "Priya went hiking with her brother recently."),
        ("Priya finds being lost in a mystery novel relaxing.", "Priya reads mystery novels."),
        # a chat turn is its speaker's: another speaker's move closes nothing
        ("Omar: I moved to Denver last year.", "Lena: I live in Boston."),
        # issue 45 N17: an ending closes its own slot, not another slot with the same value
        ("Mia no longer lives in Rome.", "Mia's office is in Rome."),
        ("Mia moved out of Rome.", "Mia works in an office in Rome."),
        # values that add up, and other people's values
        ("I speak German.", "I speak Spanish."),
        ("My newest hobby is sailing.", "I enjoy pottery."),
        ("Rui's favourite colour is red.", "My favourite colour is teal."),
        ("My brother's name is Bo.", "My name is Ada."),
        # causes of the LoCoMo chat closures of 6c06c2e's slot reading (other sentences):
        # a negated ending ends nothing, and a value is matched as whole words ("it" is no
        # part of "quit")
        ("Ravi: We never quit, whatever the score.", "Ravi: I really enjoyed it."),
        ("Ravi: Don't ever give up on what you love.", "Ravi: Thanks for the tip, I'll try it."),
        # a name that lost something is not what ended ("Nell lost her keys" ends no "Nell")
        ("Nell lost her phone on the bus.", "Ravi: Good morning Nell! Did the bus come?"),
        # a greeting's name is whom a turn addresses; "your job at" is the addressee's
        (
            "Ravi: Hi Nell, big day. I lost my job at the print shop.",
            "Ravi: Hey Nell, you said your job at the bakery was tiring.",
        ),
        # the same value restated with its reason or an aside
        (
            "Nell: Dune is my favorite book. It's so vast!",
            "Nell's favorite book is Dune because of the desert.",
        ),
        # a thing's relative clause ("shoes that work for ...") is no employer
        (
            "Nell: I sew bags that work for any season - totes, clutches!",
            "Nell sews bags that work for any season.",
        ),
        # a subordinate clause's verb and a pronoun are no slot and no value
        (
            "Ravi lost his wallet, then found it.",
            "Ravi: Thanks, Nell! After losing my wallet, I bought a new one.",
        ),
        (
            "Ravi: Yes, Nell. I've been away 'cause I lost my keys.",
            "Ravi: Sure, Nell! How've you been lately?",
        ),
        # the parse reads another person, an addition, a thing joined, a place visited
        ("My uncle now calls Basel home.", "I live in Bern."),
        ("My brother is called Pavel.", "My name is Ilya."),
        ("We added a budgie named Kiwi to the family.", "We have a cat called Miso."),
        ("Maria joined a gym near her office.", "Maria joined a church choir."),
        ("Tim will be staying in Galway for a week.", "Tim went to a place in London."),
        ("Maya drives a red Toyota Corolla.", "Maya has a serious peanut allergy."),
    ],
)
def test_changes_that_close_nothing(new: str, old: str) -> None:
    a, b = read_claims([new, old])
    decision = decide(a, b)
    assert decision is None or decision.op == "noop", (new, old, decision)


def test_the_same_value_is_a_noop() -> None:
    a, b = read_claims(["Maya is vegetarian.", "Maya is vegetarian."])
    decision = decide(a, b)
    assert decision is not None and (decision.op, decision.reason) == ("noop", None)


def _fact(fid: str, text: str, start: datetime, **kw: object) -> Fact:
    return Fact(
        id=fid, user_id="u", text=text, category="semantic", importance=5, hash=fid,
        valid_from=start, known_from=start, ingested_at=start, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_mcp_recall_names_the_replacement_and_the_predecessor() -> None:
    t0, t1 = datetime(2025, 1, 14, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)
    old = _fact("london", "Maya lives in London.", t0, valid_to=t1, known_to=t1)
    new = _fact("paris", "Maya moved to Paris.", t1)
    link = SupersessionLink(new_id="paris", old_id="london", reason=R.CONTRADICTION, at=t1)
    replaced = Hit(fact=old, score=1.0, parts={}, successors=[HistoryStep(fact=new, link=link)])
    line = format_hit(replaced)
    assert "[contradiction on 2026-03-01 by: [paris] Maya moved to Paris." in line
    assert "until 2026-03-01" in line
    current = Hit(fact=new, score=1.0, parts={}, predecessors=[HistoryStep(fact=old, link=link)])
    assert (
        "replaced on 2026-03-01: [london] Maya lives in London. "
        "(true since 2025-01-14 until 2026-03-01)" in format_hit(current)
    )


def test_metrics_count_inferred_closures_by_reason() -> None:
    metrics = Metrics()
    result = WriteResult(
        added=["n"],
        superseded=["a", "b"],
        inferred=[
            InferredLink(old_id="a", reason=R.CONTRADICTION, cue="residence: berlin", score=0.8),
            InferredLink(old_id="b", reason=R.ENDED, cue="passed away"),
        ],
    )
    metrics.count_inferred(result)
    value = metrics.registry.get_sample_value
    assert value("hmem_inferred_closures_total", {"reason": "contradiction"}) == 1.0
    assert value("hmem_inferred_closures_total", {"reason": "ended"}) == 1.0


@pytest.mark.parametrize(
    ("new", "old", "closed"),
    [
        ("I'm not on a Pixel 9 anymore, I got a Galaxy S23.", "My phone is a Pixel 9.", True),
        ("Turquoise is no longer my colour; it's orange.", "My colour is turquoise.", True),
        ("Out with Hanoi, in with Edinburgh.", "My favourite city has changed to Hanoi.", True),
        ("At the climbing club I'm Bunny now, not Tink.", "My nickname is Tink.", True),
        ("It's John with that spelling, not Jon.", "My name is Jon.", True),
        ("It's August 22, I said August 2 by mistake.", "Our anniversary is August 2.", True),
        # the drop names a value the new statement keeps: "Galaxy S23" is not dropped
        ("I'm not on a Pixel 9 anymore, I got a Galaxy S23.", "I use a Galaxy S23.", False),
        # another person's value, and her home is not her office
        ("My sister doesn't live in Porto anymore.", "I live in Porto.", False),
        ("Ines no longer lives in Melbourne.", "Ines's office is in Melbourne.", False),
        ("I'm not sure Porto was right.", "I live in Porto.", False),
        # a correction that names the value with its slip put right, however it is said
        ("Actually it's Sarah, people always get that wrong.", "My name is Sara.", True),
        ("Sorry, I typed that wrong, it's 91 Station Road.", "I live at 19 Station Road.", True),
        ("Actually it's Sarah.", "My sister's name is Sara.", False),  # someone else's
        ("Sarah is lovely.", "My name is Sara.", False),  # no correction
    ],
)
def test_a_value_the_words_drop_is_closed_for_the_same_person(
    new: str, old: str, closed: bool
) -> None:
    """ "I'm not on a Pixel 9 anymore": whatever slot the Pixel 9 was stated in, and
    whatever the parse makes of the new statement's subject."""
    a, b = read_claims([new, old])
    decision = decide(a, b)
    assert (decision is not None and decision.op == "supersede") is closed, decision
