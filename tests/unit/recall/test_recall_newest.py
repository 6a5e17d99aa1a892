"""The newest value first where no slot reading joins two statements
(hmem.recall.newest): the leader's owner, about as close to the question, a newer one
lifted to the first place; third parties, additions and endings are never lifted."""

from __future__ import annotations

from hmem.models import HistoryStep, SupersedeReason, SupersessionLink
from hmem.recall.models import Hit
from hmem.recall.newest import (
    NEWEST_BAND,
    NEWEST_CUE_BAND,
    NEWEST_CUE_SHARE,
    NEWEST_MAX_WORDS,
    NEWEST_TOP,
    rank_newest,
    rank_owner,
    same_person,
    topic_words,
)
from hmem.slots import read_slot, same_slot
from hmem.slots.counts import counted
from hmem.slots.cues import then_begins
from hmem.slots.whose import asked_about, whose
from tests.unit.recall.test_recall_scoring_and_context import day, fact


def _hits(*rows: tuple[str, str, tuple[int, int, int], float, float]) -> dict[str, Hit]:
    """(id, text, day, score, dense signal)"""
    return {
        fid: Hit(
            fact=fact(fid, text, valid_from=day(*when), known_from=day(*when)),
            score=score,
            parts={"dense": score},
            raw={"dense": dense},
        )
        for fid, text, when, score, dense in rows
    }


def _order(hits: dict[str, Hit]) -> list[str]:
    return [h.fact.id for h in sorted(hits.values(), key=lambda h: -h.score)]


def _open(f: object) -> bool:
    return True


def test_a_newer_value_in_other_words_takes_the_first_place() -> None:
    hits = _hits(
        ("lasagne", "My favourite food is lasagne.", (2021, 1, 1), 0.9, 0.70),
        ("car", "My car is a Skoda Octavia.", (2026, 1, 1), 0.6, 0.20),
        ("pierogi", "Pierogi is the dish I like most these days.", (2024, 1, 1), 0.7, 0.55),
    )
    assert rank_newest(hits, _open) == "pierogi"
    assert _order(hits) == ["pierogi", "lasagne", "car"]
    assert hits["pierogi"].parts["newest"] > 0
    assert hits["lasagne"].newer_value is None  # not marked: the slot reading's call


def test_the_band_and_the_change_cue_decide_who_answers_as_well() -> None:
    lead = 0.7
    near = lead - NEWEST_BAND + 0.01
    far = lead - NEWEST_CUE_BAND - 0.01  # below the cue band, still half as close
    faint = lead * NEWEST_CUE_SHARE - 0.01  # below the band and less than half as close
    plain = lead - NEWEST_BAND - 0.05  # outside the band, no cue
    old = "Lasagne is what I cook for guests."
    for dense, text, moved in (
        (near, "Pierogi is what I bring to parties.", True),
        (plain, "Pierogi is what I bring to parties.", False),
        (plain, "Pierogi is what I bring to parties now.", True),
        (far, "Pierogi is what I bring to parties now.", True),
        (faint, "Pierogi is what I bring to parties now.", False),
        # a value that began: as a change cue, but never within the band alone
        (far, "I started bringing pierogi to parties.", True),
        (faint, "I started bringing pierogi to parties.", False),
        (far, "New pierogi recipe for parties.", False),  # "new" is weak: the band too
    ):
        # no slot reading joins the two: only the band and the cue decide
        assert not same_slot(read_slot(text), read_slot(old))
        hits = _hits(
            ("old", old, (2021, 1, 1), 0.9, lead),
            ("new", text, (2025, 1, 1), 0.5, dense),
        )
        assert (rank_newest(hits, _open) == "new") is moved, (dense, text)


def test_third_parties_additions_and_endings_are_never_lifted() -> None:
    for text in (
        "My little sister moved to Naples.",  # another owner
        "I also speak German.",  # an addition
        "I moved out of Lyon.",  # an ending states no value
    ):
        hits = _hits(
            ("mine", "I live in Lyon.", (2021, 1, 1), 0.9, 0.7),
            ("other", text, (2025, 1, 1), 0.5, 0.69),
        )
        assert rank_newest(hits, _open) is None, text
        assert _order(hits) == ["mine", "other"]


def test_only_the_first_ranks_are_looked_at_and_only_the_open_facts() -> None:
    rows = [("lead", "My favourite film is Heat.", (2021, 1, 1), 0.9, 0.7)]
    rows += [
        (f"n{i}", f"Noise {i} about the weather.", (2020, 1, 1), 0.8 - i / 100, 0.1)
        for i in range(NEWEST_TOP - 1)
    ]
    rows.append(("late", "My favourite film is Amélie now.", (2025, 1, 1), 0.1, 0.69))
    hits = _hits(*rows)
    assert rank_newest(hits, _open) is None  # rank NEWEST_TOP + 1: recall@k stays
    hits = _hits(*rows[:1], rows[-1])
    assert rank_newest(hits, lambda f: f.id != "late") is None


def test_whose_reads_the_owner_from_the_words() -> None:
    assert whose("People know me as Zeno.") == "user"
    assert whose("The cheese I like most is brie.") == "user"
    assert whose("If anyone asks, the user's name is Tobias these days.") == "user"
    assert whose("The user's current partner is Kwame.") == "user"  # who fills the place
    assert whose("The user's mother has switched to a Pixel 8.") == "user.mother"
    assert whose("My little sister moved to Naples.") == "user.sister"
    assert whose("My twin brother switched careers to become a chef.") == "user.brother"
    # a model's name is no first-person word
    assert whose("My twin brother drives a Hyundai i10 these days.") == "user.brother"
    assert whose("My best friend now works for IKEA.") == "user.friend"
    assert whose("My husband's name is Yusuf.") == "user.husband"
    assert whose("My boss is Marcus now.") == "user"  # who fills the user's slot
    assert whose("I visited my sister.") == "user"
    assert whose("Selma is my partner.") == "user"  # who fills the user's slot
    assert whose("Our fifth child was born last week.") == "user"  # a count of mine
    assert whose("Mia's husband is Tom.") == "mia.husband"
    assert whose("Mia moved to Rome.") == "mia"
    # a verb that starts a statement is no name: the user's words without "I"
    assert whose("Packed everything up and moved to Montreal.") is None
    assert whose("Said goodbye to the old machine, hello Razer Blade.") is None
    assert whose("Tom left the band.") == "tom"
    # a note is the user's (or the relative's it names)
    assert whose("New usual drink alert: ginger beer!") == "user"
    assert whose("my sister's car: Polestar 2") == "user.sister"
    # the user's name, whoever gives it
    assert whose("My friends call me Moose.") == "user"
    assert whose("Nobody says Ziggy anymore, my mates call me Pip now.") == "user"
    assert whose("My friends switched from Ziggy to Bruno for my nickname.") == "user"
    assert whose("My sister told me she moved to Lyon.") == "user.sister"
    assert whose("Name's Jonah, by the way.") is None  # "Name" is no one's name
    assert whose("Busy week! Work's been mad, but we finally moved to Leeds.") == "user"
    assert whose("Mum has moved to Limerick to be near my aunt.") == "user.mum"  # kin as names
    assert whose("Dad's new phone is a Pixel.") == "user.dad"
    assert whose("the user's brother-in-law has a Nokia brick") == "user.brother-in-law"
    assert whose("stopped going to Sainsbury's, it's Trader Joe's now") is None  # a shop


def test_a_long_chat_message_is_no_statement_to_lift() -> None:
    long = "I now use a new tracker, " + "and it is working well for me " * 4 + "so far."
    assert len(long.split()) > NEWEST_MAX_WORDS
    hits = _hits(
        ("old", "My favourite tracker is Trello.", (2021, 1, 1), 0.9, 0.7),
        ("long", long, (2025, 1, 1), 0.5, 0.69),
    )
    assert rank_newest(hits, _open) is None


def test_the_question_says_whose_value_it_asks_for() -> None:
    assert asked_about("Which city is my little sister in?") == "user.sister"
    assert asked_about("What's my boss's name?") == "user.boss"
    assert asked_about("What phone do I have?") == "user"
    assert asked_about("Where does Maya live?") is None
    assert same_person("user.mum", "user.mother") and same_person("user", "user")
    assert not same_person("user", "user.sister") and not same_person(None, "user")
    assert whose("Tomás is now my partner.") == "user"  # who fills the user's place
    assert whose("Heads-up, new employer: Ocado.") == "user"  # a note: no one named Heads


def test_the_asked_person_comes_before_another_within_the_first_ranks() -> None:
    hits = _hits(
        ("mine", "I moved to Tallinn myself.", (2025, 1, 1), 0.9, 0.7),
        ("weather", "The weather was lovely this weekend.", (2020, 1, 1), 0.8, 0.6),
        ("hers", "My little sister lives in Lyon.", (2024, 1, 1), 0.7, 0.6),
    )
    assert rank_owner(hits, "Which city is my little sister in?", _open)
    # the sister's and the user's trade places; the weather keeps its own
    assert _order(hits) == ["hers", "weather", "mine"]
    assert hits["hers"].parts["owner"] > 0
    mum = _hits(
        ("hers", "My mum uses a Doro flip phone.", (2024, 1, 1), 0.9, 0.7),
        ("mine", "I use a Motorola G.", (2024, 1, 1), 0.8, 0.6),
    )
    assert rank_owner(mum, "What phone do I have?", _open)
    assert _order(mum) == ["mine", "hers"]
    assert rank_owner(mum, "What phone does my mother have?", _open)  # mum is mother
    assert _order(mum) == ["hers", "mine"]


def test_no_move_without_a_statement_of_the_asked_person() -> None:
    # "Who is my partner?": the user's own statements say who fills that place
    hits = _hits(
        ("dating", "I'm dating Elena now.", (2025, 1, 1), 0.9, 0.7),
        ("weather", "The weather was lovely this weekend.", (2020, 1, 1), 0.8, 0.6),
    )
    assert not rank_owner(hits, "Who is my partner?", _open)
    assert _order(hits) == ["dating", "weather"]
    assert not rank_owner(hits, "Where does Maya live?", _open)


def test_a_relatives_newest_value_is_lifted_when_the_question_asks_about_them() -> None:
    rows = (
        ("lyon", "My little sister lives in Lyon.", (2021, 1, 1), 0.9, 0.7),
        ("oslo", "My little sister's home has changed to Oslo.", (2025, 1, 1), 0.6, 0.5),
    )
    assert rank_newest(_hits(*rows), _open) is None  # not the user's: left alone
    hits = _hits(*rows)
    assert rank_newest(hits, _open, "Which city is my little sister in?") == "oslo"


def test_the_questions_topic_word_joins_a_newer_statement_to_the_leader() -> None:
    assert topic_words("Which sport do I love most?") == {"sport"}
    rows = (
        ("tt", "My favourite sport is table tennis.", (2021, 1, 1), 0.9, 0.72),
        ("padel", "Padel is the sport I follow most closely.", (2025, 1, 1), 0.5, 0.45),
    )
    assert rank_newest(_hits(*rows), _open, "Which sport is my favourite?") == "padel"
    assert rank_newest(_hits(*rows), _open, "What do I play on weekends?") is None


def test_after_a_leader_that_only_ends_something_a_newer_value_comes_first() -> None:
    rows = (
        ("died", "Sadly my pet died last week.", (2024, 1, 1), 0.9, 0.6),
        ("cat", "We adopted a cat called Pepper.", (2025, 1, 1), 0.5, 0.4),
    )
    assert rank_newest(_hits(*rows), _open, "Which animal lives with me?") == "cat"


def test_the_users_relative_and_the_users_own_words() -> None:
    assert whose("The user's mother has switched to a Pixel 8.") == "user.mother"
    assert whose("The user's friends now nickname them Sparky.") == "user"  # them: the user
    assert whose("The user's favourite band is now Bon Iver.") == "user"
    assert whose("A BMW 3 Series is my dad's new car.") == "user.dad"


def test_new_alone_is_a_weak_cue_and_other_slots_never_answer() -> None:
    lead = ("date", "It's August 22, I said August 2 by mistake.", (2025, 1, 1), 0.9, 0.31)
    shoes = ("shoes", "I bought new running shoes.", (2025, 2, 1), 0.5, 0.10)
    assert rank_newest(_hits(lead, shoes), _open, "What date did we get married?") is None
    colour = ("colour", "My favourite colour is teal.", (2024, 1, 1), 0.9, 0.5)
    sport = ("sport", "My favourite sport has changed to padel.", (2025, 1, 1), 0.8, 0.45)
    assert rank_newest(_hits(colour, sport), _open, "What colour do I like?") is None
    # a new pet beside the old one: the newest first
    old_pet = ("nugget", "My pet is a guinea pig, Nugget.", (2024, 1, 1), 0.9, 0.5)
    new_pet = ("pepper", "We adopted a cat called Pepper.", (2025, 1, 1), 0.8, 0.4)
    assert rank_newest(_hits(old_pet, new_pet), _open, "Which animal lives with me?") == "pepper"


def test_an_ending_that_says_what_holds_now_is_a_newer_value() -> None:
    hits = _hits(
        ("dune", "If I could keep one book it would be Dune these days.", (2024, 1, 1), 0.9, 0.6),
        ("piranesi", "Dune is no longer my top book; it's Piranesi.", (2025, 1, 1), 0.7, 0.5),
    )
    assert rank_newest(hits, _open, "What's the book I like most?") == "piranesi"
    hits = _hits(
        ("car", "I drive an Audi A4.", (2024, 1, 1), 0.9, 0.6),
        ("sold", "I don't have a car anymore; I sold it.", (2025, 1, 1), 0.7, 0.5),
    )
    assert rank_newest(hits, _open, "Which car do I have?") is None  # an ending only


def test_a_relatives_place_filled_in_the_users_own_words() -> None:
    rows = (
        ("marcus", "My boss's name is Marcus.", (2024, 1, 1), 0.9, 0.6),
        ("bjorn", "We got a new boss: Björn.", (2025, 1, 1), 0.8, 0.5),
    )
    assert rank_newest(_hits(*rows), _open, "What's my boss's name?") == "bjorn"


def test_an_ending_that_goes_on_to_a_beginning_is_a_newer_value() -> None:
    for text in (
        "I left Siemens and joined Spotify.",
        "gave up spin for CrossFit",
        "I stopped going to Blade & Co and switched to Kutz.",
    ):
        assert then_begins(text), text
    for text in ("RIP Luna, best dog ever", "I cancelled Apple TV+.", "Juno passed away"):
        assert not then_begins(text), text
    hits = _hits(
        ("boulder", "exercise: bouldering", (2024, 1, 1), 0.9, 0.6),
        ("pilates", "I gave up bouldering and took up pilates instead.", (2025, 1, 1), 0.8, 0.5),
    )
    assert rank_newest(hits, _open, "What do I do for exercise?") == "pilates"


def test_a_statement_that_names_the_leaders_value_and_a_change_answers_as_well() -> None:
    # far below the leader (past every band), but it names the leader's Deliveroo and
    # says it is a change
    rows = (
        ("deliveroo", "I work at Deliveroo.", (2024, 1, 1), 0.9, 0.8),
        ("ocado", "big news, I'm at Ocado now, Deliveroo had layoffs", (2025, 1, 1), 0.5, 0.2),
    )
    assert rank_newest(_hits(*rows), _open, "Where do I work?") == "ocado"
    # naming it with no change said ("still love rock climbing") is no newer value
    rows = (
        ("rock", "I'm really into rock climbing.", (2024, 1, 1), 0.9, 0.8),
        ("cheese", "We had cheese after rock climbing with Mo.", (2025, 1, 1), 0.5, 0.2),
    )
    assert rank_newest(_hits(*rows), _open, "What are my hobbies?") is None


def test_two_statements_that_count_the_same_thing_are_one_count() -> None:
    assert counted("three grandchildren") == counted("our fifth grandchild arrived")
    assert counted("houseplants up to 8") == {"houseplant"} == counted("I've got 12 houseplants")
    assert counted("my second marathon, legs destroyed") == {"marathon"}
    assert counted("I have a dentist appointment next Tuesday.") == frozenset()
    rows = (
        ("two", "I've run two marathons.", (2024, 1, 1), 0.9, 0.8),
        ("fourth", "fourth marathon: done", (2025, 1, 1), 0.5, 0.3),
    )
    assert rank_newest(_hits(*rows), _open, "How many marathons have I run?") == "fourth"


def test_a_leader_no_words_own_is_the_users_in_the_users_memory() -> None:
    """A leader whose words name no one ("Name's Jonah", "The weather was lovely") is
    taken for the user's when the user is asked about: a newer value of the user's
    that answers as well comes first."""
    hits = _hits(
        ("jonah", "Name's Jonah, by the way.", (2025, 1, 1), 0.46, 0.37),
        ("farah", "please stop calling me Theo, it's Farah these days", (2025, 4, 1), 0.25, 0.2),
    )
    assert rank_newest(hits, _open, "What name do I go by?") == "farah"
    assert _order(hits)[0] == "farah"


def test_a_favourite_tv_show_is_a_favourite_show() -> None:
    hits = _hits(
        ("derry", "My favourite TV show is Derry Girls.", (2025, 1, 1), 0.67, 0.67),
        ("flea", "My favourite show these days is Fleabag.", (2025, 2, 1), 0.54, 0.59),
    )
    assert rank_newest(hits, _open, "What's my favourite TV show?") == "flea"


def test_who_fills_a_place_is_one_thing_however_said() -> None:
    """ "my manager's name is Gregor" (a name of user.manager) and "my manager has changed
    to Folake" (the user's manager) answer one question; "reports to Marco", with no
    one's words, is the user's when the question asks who the user's manager is."""
    hits = _hits(
        ("gregor", "My manager's name is Gregor.", (2025, 1, 1), 0.6, 0.6),
        ("folake", "My manager has changed to Folake.", (2025, 3, 1), 0.5, 0.5),
    )
    assert rank_newest(hits, _open, "What's my manager's name?") == "folake"
    hits = _hits(
        ("marco", "reports to Marco", (2025, 1, 1), 0.18, 0.25),
        ("olu", "I report to Olu now.", (2025, 3, 1), 0.14, 0.21),
    )
    assert rank_newest(hits, _open, "do you remember who my manager is?") == "olu"
    assert whose("my partner now Noor") == "user"  # who fills the place, said tersely
    assert whose("my sister Maria moved to Rome") == "user.sister"


def test_a_count_no_words_own_is_the_users() -> None:
    hits = _hits(
        ("four", "our fourth little one arrived, so four children now", (2025, 1, 1), 0.3, 0.43),
        ("five", "fifth child born today", (2025, 6, 1), 0.25, 0.36),
    )
    assert rank_newest(hits, _open, "How many kids do I have?") == "five"


def test_a_correction_answers_as_the_slip_it_put_right_did() -> None:
    """ "typo: ochre not orchid" shares no word with the question: it inherited the
    slip's relevance, and it answers as the slip did, its change cue saying it is newer
    than the colour before the slip."""
    hits = _hits(
        ("cyan", "If you ever need to know, my favourite colour is cyan.", (2025, 1, 1), 0.62, 0.6),
        ("ochre", "typo: ochre not orchid", (2025, 3, 1), 0.56, 0.1),
    )
    hits["ochre"] = hits["ochre"].model_copy(update={"parts": {"dense": 0.0, "inherited": 0.55}})
    assert rank_newest(hits, _open, "Which colour do I like best these days?") == "ochre"


def test_an_ending_of_a_value_of_the_users_is_the_users() -> None:
    """ "Rex passed away" names Rex, whom the user's words made their dog: the user's
    statement, so the new puppy after it comes first."""
    hits = _hits(
        ("died", "Rex passed away last week.", (2025, 3, 1), 0.6, 0.5),
        ("luna", "We got a new puppy called Luna.", (2025, 5, 1), 0.5, 0.45),
    )
    rex = fact("rex", "Our dog is called Rex.", valid_from=day(2025, 1, 1))
    link = SupersessionLink(
        new_id="died", old_id="rex", reason=SupersedeReason.ENDED, at=day(2025, 3, 1)
    )
    hits["died"] = hits["died"].model_copy(
        update={"predecessors": [HistoryStep(fact=rex, link=link)]}
    )
    assert rank_newest(hits, _open, "What's my dog called?") == "luna"


def test_an_ending_that_goes_on_from_the_leaders_words_answers() -> None:
    hits = _hits(
        ("spin", "I do spin to stay sane, three times a week if I can", (2025, 1, 1), 0.18, 0.25),
        ("crossfit", "gave up spin for CrossFit", (2025, 4, 1), 0.14, 0.2),
    )
    assert rank_newest(hits, _open, "What do I do for exercise?") == "crossfit"


def test_a_statement_that_says_what_it_replaces_is_the_users() -> None:
    hits = _hits(
        ("crv", "correction — a Honda CR-V. always confuse the two", (2025, 1, 2), 0.65, 0.29),
        ("passat", "sorry, it's a VW Passat, not a Honda CR-V", (2025, 1, 3), 0.2, 0.29),
    )
    assert rank_newest(hits, _open, "what car do I drive?") == "passat"
