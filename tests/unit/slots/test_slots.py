"""Slot reading from the words (hmem.slots): subject + slot + value, single or multi,
and which statements are rivals. Sentences written for these tests."""

from __future__ import annotations

import pytest

from hmem.slots import read_slot, rivals, states_newer_value
from hmem.slots.values import SLIP, corrected, dropped, then_states, to_value


@pytest.mark.parametrize(
    ("text", "subject", "slot", "value"),
    [
        ("My name is Ada.", "user", "name", "ada"),
        ("Call me Bo from now on.", "user", "name", "bo"),
        ("Cleo is what I go by these days.", "user", "name", "cleo"),
        ("Bruno — that's what friends call me these days", "user", "name", "bruno"),
        ("Sasha is the name I use now", "user", "name", "sasha"),
        ("Ramen has overtaken pizza as my favourite food", "user", "favourite:food", "ramen"),
        ("I've come round to autumn as my favourite season", "user", "favourite:season", "autumn"),
        ("Teal is my favourite colour now.", "user", "favourite:colour", "teal"),
        ("My favorite board game has changed to Azul.", "user", "favourite:board game", "azul"),
        ("Rui's favourite drink is chai.", "rui", "favourite:drink", "chai"),
        ("Correction: my birthday is actually May 13, not May 3.", "user", "birthday", "may 13"),
        ("Rui moved from Lisbon to Porto last month.", "rui", "residence", "porto"),
        ("My sister lives in Oslo.", "user.sister", "residence", "oslo"),
        ("We just had our third child!", "user", "count:child", "3"),
        ("Ines had her second child.", "ines", "count:child", "2"),
        ("I traded my Kia Niro for a Volvo XC40.", "user", "car", "volvo xc40"),
        ("Mia's office is in Rome.", "mia", "office", "in rome"),
        ("I speak Korean.", "user", "speak", "korean"),
    ],
)
def test_a_statement_reads_as_subject_slot_value(
    text: str, subject: str, slot: str, value: str
) -> None:
    reading = read_slot(text)
    assert (reading.subject, reading.slot, reading.value) == (subject, slot, value)


@pytest.mark.parametrize(
    ("text", "subject", "slot", "value"),
    [
        # a greeting's name is the one spoken to; the sentence with the frame says whose
        ("Hey Nell, big news. I work at Copperleaf now.", "user", "employer", "copperleaf"),
        ("Great news Nell! I moved to Ghent.", "user", "residence", "ghent"),
        # the one spoken to's ("your work at"), a thing's ("that work for"): no slot
        ("You told me about your work at the museum.", None, None, None),
        ("These are shoes that work for any trail.", None, None, None),
        # a pronoun is no value, an interjection or a clause opener no subject
        ("Highly recommend it!", None, None, None),
        ("After losing my keys, I walked home.", None, None, None),
        # what was said is no slot of its own ("said Hull" is no slot "said")
        ("Sorry, I said Hull but I meant Goole.", None, None, None),
        # a date is no count ("on September 9" is no count of Septembers)
        ("Our anniversary is on September 9.", "user", "anniversary", "on september 9"),
        # a reason or an aside is no part of the value
        ("Dune is my favorite book because of the desert.", "user", "favourite:book", "dune"),
        ("My favourite food is pho - the broth!", "user", "favourite:food", "pho"),
    ],
)
def test_what_is_no_subject_no_slot_no_value(
    text: str, subject: str | None, slot: str | None, value: str | None
) -> None:
    reading = read_slot(text)
    assert (reading.subject if slot else None, reading.slot, reading.value) == (
        subject,
        slot,
        value,
    )


def test_single_valued_by_the_data_or_a_change_cue_multi_valued_otherwise() -> None:
    assert read_slot("My name is Ada.").single
    assert not read_slot("I speak Korean.").single  # values add up
    assert read_slot("I play squash now instead.").single  # a change cue: one at a time
    assert not read_slot("Kai is now ready to help others.").single  # "now" alone is not
    assert not read_slot("I bought new running shoes.").single  # "new" alone is no change
    assert not read_slot("I have a dog named Rex.").single  # pets add up


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        ("My name is Ada.", "Bo is what I go by now.", True),
        ("I live in Lisbon.", "I just moved to Porto.", True),
        ("I drink coffee every morning.", "I switched to tea; I no longer drink coffee.", True),
        ("I live in Lisbon.", "My sister lives in Porto.", False),  # another person
        ("My favourite colour is teal.", "Rui's favourite colour is red.", False),
        ("I speak Spanish.", "I speak German.", False),  # multi-valued
        ("I have a cat named Mochi.", "We also adopted a dog called Rex.", False),
        ("Mia lives in Rome.", "Mia's office is in Rome.", False),  # another slot
    ],
)
def test_rivals_are_other_values_of_one_single_valued_slot(
    older: str, newer: str, expected: bool
) -> None:
    assert rivals(read_slot(newer), read_slot(older)) is expected


def test_states_newer_value_cannot_tell_without_a_slot() -> None:
    assert states_newer_value("The weather was lovely.", "I live in Porto.") is None
    assert states_newer_value("I live in Lisbon.", "I moved to Porto.") is True


def test_dropped_values_and_from_to_values() -> None:
    assert dropped("I'm not on a Pixel 9 anymore, I got a Galaxy S23.", "pixel 9")
    assert not dropped("I'm not on a Pixel 9 anymore, I got a Galaxy S23.", "galaxy s23")
    assert dropped("Out with Hanoi, in with Edinburgh.", "hanoi")
    assert not dropped("Out with Hanoi, in with Edinburgh.", "edinburgh")
    assert dropped("I'm Bunny now, not Tink.", "tink")
    assert not dropped("I'm not sure about Porto.", "porto")  # a doubt drops nothing
    assert not dropped("Anything", "")
    # "all out with" is no letting go; a chat message drops things in passing; "so" is
    # no value (LoCoMo turns the pairs check closed with these)
    assert not dropped("I decorated this tree, going all out with a Harry Potter theme!", "theme")
    assert not dropped("I'm hoping so, but I'm not going anymore.", "so")
    long = "I no longer go to the studio " + "and it is a long story really " * 3
    assert not dropped(long, "studio")
    assert dropped("I no longer go to the studio.", "studio")
    assert to_value("from volleyball to cricket") == "cricket"
    assert to_value("volleyball") == "volleyball"
    assert read_slot("I've switched from volleyball to cricket.").value == "cricket"


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("Padel is the sport I follow most closely now.", "favourite:sport", "padel"),
        ("My favourite film is Heat.", "favourite:movie", "heat"),  # a film is a movie
        ("The novel I love most is Dune.", "favourite:book", "dune"),
        ("Country number 16 ticked off!", "count:country", "16"),
        ("Another grandchild arrived, so that makes four.", "count:grandchild", "4"),
        ("I just visited my 19th country.", "count:country", "19"),
        ("That trip brings me to 16 countries.", "count:country", "16"),
        ("My marathon count is now three.", "count:marathon", "3"),
        # a count that went up or down, and a count of a rate
        ("Cut down to two coffees a day.", "count:coffee", "2"),
        ("They've upped it to five office days a week.", "count:office day", "5"),
        ("I have four coffees a day now.", "count:coffee", "4"),
        ("I drink three coffees a day.", "count:coffee", "3"),
        ("I bought another one, that's eleven houseplants.", "count:houseplant", "11"),
        ("Correction, my age is 34.", "age", "34"),
        ("Small correction: my name is spelled Katharine.", "name", "katharine"),
        ("Autocorrect got me: I live in Bern.", "residence", "bern"),
        # names given every way, and the handle used online
        ("Name's Jonah, by the way.", "name", "jonah"),
        ("my nickname's Red", "name", "red"),
        ("I've decided to use Marisol as my name from here on.", "name", "marisol"),
        ("Theo is my name now.", "name", "theo"),
        ("please stop calling me Theo, it's Farah these days", "name", "farah"),
        ("Nobody says Ziggy anymore, my mates call me Pip now.", "name", "pip"),
        ("I changed my handle to saltmarsh7.", "username", "saltmarsh7"),
        ("new username: kestrel.codes", "username", "kestrel.codes"),  # a dot in a value
        ("You'll find me online as pixelbard.", "username", "pixelbard"),
        ("I report to Grace now.", "manager", "grace"),
        # slang and a favourite said after the value
        ("my fave painter rn is Rothko tbh", "favourite:painter", "rothko"),
        ("fave ice cream flavour = hazelnut", "favourite:ice cream flavour", "hazelnut"),
        ("Come round to mint tea, it's my favourite drink now.", "favourite:drink", "mint tea"),
        ("Finished my fourth marathon today!", "count:marathon", "4"),
        ("Nothing beats Up for me, it's my favourite film.", "favourite:movie", "up"),
        ("We adopted another cat, so that's three now.", "count:cat", "3"),  # a total
        ("Our third grandchild arrived on Sunday!", "count:grandchild", "3"),
        ("our third little one arrived, so three children now", "count:child", "3"),
        ("Crossed the line in my fifth marathon, legs are dead.", "count:marathon", "5"),
        ("Just finished book 23 of the year.", "count:book", "23"),
        ("My new go-to drink is an IPA.", "favourite:drink", "ipa"),  # no drink "is an IPA"
        ("grandkids: 3, the third arrived", "count:grandchild", "3"),
        ("my last name's Kowalski, people always misspell it", "surname", "kowalski"),
        ("last name: Lindgren since the wedding", "surname", "lindgren"),
        ("I took my wife's name, so I'm a Khan now.", "surname", "khan"),
        ("I'm a proud grandparent of two, they keep me young", "count:grandchild", "2"),
        ("That makes 7 years at Deloitte this month.", "tenure", "7"),  # no count of years
        ("I've worked at Deloitte for 6 years.", "employer", "deloitte"),
        ("Four years at Acme today, time flies.", "tenure", "four"),
        ("I've been at Acme for three years now.", "tenure", "three"),
        ("Moved to Bergen.", "residence", "bergen"),  # no subject, a verb first: mine
        ("Changed jobs, so my email is kim@newco.com now.", "email", "kim@newco.com"),
        ("I have long curly hair.", "hair", "long curly"),
        ("Got a pixie cut last week, loving it.", "hair", "pixie"),
        # one clause among other news, its subject just before it
        (
            "Busy week! Work's been mad, but the big news is we finally moved to Leeds.",
            "residence",
            "leeds",
        ),
        # "from X to Y": the value is where it went
        ("My favourite colour changed from red to blue.", "favourite:colour", "blue"),
        ("the user's therapist changed from Ruth to Hannah", "therapist", "hannah"),
        ("if I had to pick one meal forever it'd be ramen, no contest", "favourite:food", "ramen"),
    ],
)
def test_more_phrasings_name_their_slot(text: str, slot: str, value: str) -> None:
    found = read_slot(text)
    assert (found.subject, found.slot, found.value) == ("user", slot, value)
    assert not found.added  # a count is a total


def test_not_every_most_is_a_favourite_nor_every_number_a_count() -> None:
    assert read_slot("The book I read most recently is Dune.").slot != "favourite:book"
    assert not (read_slot("I live at house number 12.").slot or "").startswith("count:")


def test_a_correction_names_the_value_with_its_slip_put_right() -> None:
    assert corrected("Actually it's Sarah, people always get that wrong.", "sara") == "sarah"
    assert corrected("Sorry, I typed that wrong, it's 91 Station Road.", "19 station road") == (
        "91 station road"
    )
    assert corrected("I mistyped earlier, it's March 13.", "march 3") == "march 13"
    assert corrected("Sorry, it's Thompson with a p.", "thomson") == "thompson"
    assert corrected("Let me correct that: we married on 7 September.", "17 september") == (
        "7 september"
    )
    # another value, the same value, a part of it: no slip put right
    assert corrected("Actually it's Sam.", "sara") is None
    assert corrected("Actually it is Sara.", "sara") is None
    assert corrected("I mistyped earlier, it's March.", "march 3") is None


@pytest.mark.parametrize(
    ("text", "slip"),
    [
        ("sorry, I meant teal", True),
        ("wait no, Porto. Prato was a slip", True),
        ("sorry, Leek! not Leeds, my fingers slipped", True),
        ("Oops, autocorrect. Weezer, not Wilco.", True),
        ("typo: Ana not Ava", True),
        ("Sorry, I spelled it wrong, it's Catherine.", True),
        ("Oops, kim@newco.io, not .com.", True),
        ("Oops, dropped my keys", False),
        ("I meant to call my mum", False),
        ("I slipped on the ice this morning", False),
        ("I can't wait for the weekend", False),
    ],
)
def test_words_that_can_only_say_a_slip(text: str, slip: bool) -> None:
    assert (SLIP.search(text) is not None) is slip


def test_an_ending_then_what_holds_now_is_a_change() -> None:
    assert then_states("Dune is no longer my top book; it's Piranesi.")
    assert then_states("My little sister no longer lives in Seville; she's in Naples now.")
    assert then_states("I'm no longer into volleyball; cricket is my sport now.")
    assert not then_states("I don't have a car anymore; I sold it.")
    assert not then_states("I quit my job, it was awful.")
    assert not then_states("Sadly my dog died.")


def test_a_slip_is_in_one_word_not_another_word() -> None:
    """A slip put right changes a word a little ("19" -> "91"), it does not swap one
    word for another ("first video game tournament" -> "the video game tournament")."""
    text = "Yeah actually - I'm currently in the video game tournament again"
    assert corrected(text, "first video game tournament") is None
    assert corrected("Sorry, I typed that wrong, it's 91 Station Road.", "19 station road")
