"""Dates from the words: "in May 2026", "last month", "since 2019", "from 2015 to 2020",
"two weeks ago", "next September", "until June" as a fact's world window, read against
the write's ``observed_at``.

A date keeps the precision the words give: a value is the first instant (UTC) of a
period and ``precision`` names the period (day, week, month, season, year, decade), so
"in October 2026" is 2026-10-01 with precision ``month``, never a day nobody said.
A week starts on Monday; seasons start with March, June, September and December.

``dateparser`` reads the day-precise forms ("3rd of March 2021", "March 3rd"); its
``search_dates`` finds spans ("from Paris", "2000 euros") and fills missing parts with
today's, so the spans, the roles (since / until / from … to) and the periods are ours.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateparser.date import DateDataParser

__all__ = ["PRECISIONS", "Interval", "When", "read_interval"]

PRECISIONS = ("day", "week", "month", "season", "year", "decade")

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "a couple of": 2, "couple of": 2,
}  # fmt: skip
HOLIDAYS = {
    "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25),
    "new year's eve": (12, 31), "new year's day": (1, 1), "halloween": (10, 31),
    "valentine's day": (2, 14),
}  # fmt: skip
DECADE_WORDS = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip

_FULL_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
)
_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_NUM = r"(?:\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?:day|week|month|year|decade)s?"
_SEASON = r"(?:spring|summer|autumn|fall|winter)"
_WEEKDAY = r"(?:" + "|".join(WEEKDAYS) + r")"
_END = r"(?![\w-])"  # not inside a longer word or number

# Words before a bare year or month that make it a date ("in 2019", "since June") and
# not a count or a name ("2000 euros", "May said").
_GATE = (
    r"(?:in|since|from|until|till|til|to|by|of|between|and|through|thru|during|early|late|"
    r"mid|around|circa|before|after|last|next|this|throughout|starting|as of|the end of|"
    r"the start of|the beginning of|the middle of|beginning|start of|end of|back in|or)"
)

_GATE_BEFORE = re.compile(r"\b" + _GATE + r"\s+$", re.IGNORECASE)
_GATED = ("year", "month")


@dataclass(frozen=True)
class When:
    """A period named by the words: its first instant and its length."""

    start: datetime
    precision: str


@dataclass(frozen=True)
class Interval:
    """What a sentence says about its fact's world window. ``valid_from`` / ``valid_to``
    are the first instants of the periods named, each with its precision; ``cue`` is
    the words read, for explanations. An empty interval: the words name no date."""

    valid_from: datetime | None = None
    valid_to: datetime | None = None
    from_precision: str | None = None
    to_precision: str | None = None
    cue: str = ""

    @property
    def empty(self) -> bool:
        return self.valid_from is None and self.valid_to is None


@dataclass(frozen=True)
class _Found:
    begin: int
    end: int
    when: When
    role: str = "point"  # point, since, until, range_from, range_to, skip
    kind: str = ""  # the reader's (_READERS): which words read it


# -- calendar arithmetic ------------------------------------------------------------------
def _day(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def _month(year: int, month: int) -> When:
    return When(datetime(year, month, 1, tzinfo=UTC), "month")


def _week(moment: datetime) -> When:
    day = _day(moment)
    return When(day - timedelta(days=day.weekday()), "week")


def _shift(base: datetime, unit: str, n: int) -> When:
    """The period ``n`` units after ``base`` (before when negative)."""
    unit = unit.rstrip("s")
    if unit == "day":
        return When(_day(base) + timedelta(days=n), "day")
    if unit == "week":
        return _week(base + timedelta(weeks=n))
    if unit == "month":
        months = base.year * 12 + base.month - 1 + n
        return _month(months // 12, months % 12 + 1)
    if unit == "decade":
        return When(datetime(base.year + 10 * n, 1, 1, tzinfo=UTC), "year")
    return When(datetime(base.year + n, 1, 1, tzinfo=UTC), "year")


def _number(word: str) -> int:
    word = " ".join(word.split())
    return int(word) if word.isdigit() else NUMBERS[word]


def _pick_year(month: int, day: int, base: datetime, lean: str) -> int:
    """The year of a date said without one: the last such date (``past``), the next one
    (``future``), strictly before/after (``last``/``next``), or the nearest."""
    this = (month, day)
    today = (base.month, base.day)
    if lean == "last":
        return base.year if this < today else base.year - 1
    if lean == "next":
        return base.year if this > today else base.year + 1
    if lean == "this":
        return base.year
    if lean == "past":
        return base.year if this <= today else base.year - 1
    if lean == "future":
        return base.year if this >= today else base.year + 1
    options = []
    for year in (base.year - 1, base.year, base.year + 1):
        try:
            options.append((abs(datetime(year, month, day) - base.replace(tzinfo=None)), year))
        except ValueError:  # 29 February
            continue
    return min(options)[1]


def _season(name: str, year: int) -> When:
    return When(datetime(year, SEASONS[name], 1, tzinfo=UTC), "season")


def _season_rel(name: str, base: datetime, lean: str) -> When:
    """``last`` summer: the latest one begun before the one ``base`` is in; ``next``: the
    first one to begin after ``base``; ``this``: the one begun last (or coming)."""
    month = SEASONS[name]
    start = datetime(base.year, month, 1, tzinfo=UTC)
    if start > base:
        start = start.replace(year=base.year - 1)
    months = start.year * 12 + start.month + 2  # the season's end: three months on
    inside = start <= base < datetime(months // 12, months % 12 + 1, 1, tzinfo=UTC)
    if lean == "last":
        return When(start.replace(year=start.year - 1) if inside else start, "season")
    if lean == "next":
        return When(start.replace(year=start.year + 1), "season")
    if lean == "this" and not inside and start.year < base.year:
        return When(start.replace(year=start.year + 1), "season")
    return When(start if lean != "future" or inside else start.replace(year=start.year + 1),
                "season")  # fmt: skip


@functools.cache
def _dateparser() -> DateDataParser:
    return DateDataParser(languages=["en"], settings={"PREFER_DAY_OF_MONTH": "first"})


def _full_day(words: str) -> When | None:
    """A day with its year ("March 3rd, 2021", "the 3rd of March 2021"): dateparser."""
    found = _dateparser().get_date_data(words.replace(" of ", " ").removeprefix("the "))
    if found.date_obj is None or found.period != "day":
        return None
    return When(_day(found.date_obj), "day")


# -- the tense of a sentence decides the year of "in March" --------------------------------
_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|'ll|plan(?:s|ning)? to|intend|hope to|"
    r"about to|is to|are to|scheduled|upcoming|soon)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:was|were|did|had|went|got|left|began|took|met|bought|sold|lost|broke|became|"
    r"came|found|made|gave|saw|told|won|ran|wrote|fell|died|quit|ago|last|used to|"
    r"\w{2,}ed)\b",
    re.IGNORECASE,
)


def lean_of(text: str) -> str:
    if _FUTURE.search(text):
        return "future"
    if _PAST.search(text):
        return "past"
    return "nearest"


# -- the readers: each a pattern and what it names ------------------------------------------
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'-])" + pattern + _END, re.IGNORECASE)


_MOD = r"(?:(?P<mod>last|next|this|coming|past|previous)\s+)?"
_READERS: list[tuple[re.Pattern[str], str]] = [
    (_compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"), "iso_day"),
    (_compile(r"(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])(?!-\d)"), "iso_month"),
    (_compile(rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}"), "full_day"),
    (_compile(rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}"), "full_day"),
    (_compile(rf"{_MOD}(?P<mon>{_MONTH})\s+(?P<d>{_DAY})(?!\d|,?\s+\d)"), "month_day"),
    (
        _compile(rf"{_MOD}(?:the\s+)?(?P<d>{_DAY})\s+of\s+(?P<mon>{_MONTH})(?!,?\s+\d)"),
        "month_day",
    ),
    (_compile(rf"{_MOD}(?P<d>{_DAY})\s+(?P<mon>{_MONTH})(?!,?\s+\d)"), "month_day"),
    (_compile(rf"(?P<mon>{_MONTH}),?\s+(?:of\s+)?(?P<y>{_YEAR})"), "month_year"),
    (_compile(rf"(?:the\s+)?(?P<s>{_SEASON})\s+(?:of\s+)?(?P<y>{_YEAR})"), "season_year"),
    (
        _compile(rf"(?P<mod>last|next|this|past|previous|coming)\s+(?P<s>{_SEASON})"),
        "season_rel",
    ),
    (_compile(r"(?:the\s+)?(?:(?:early|mid|late)[\s-]+)?(?P<y>(?:1[89]|20)\d0)'?s"), "decade"),
    (_compile(r"(?:the\s+)?(?:(?:early|mid|late)[\s-]+)?'(?P<yy>\d0)s"), "decade"),
    (_compile(r"the\s+(?:(?:early|mid|late)[\s-]+)?(?P<yy>\d0)s"), "decade"),
    (_compile(rf"{_MOD}(?P<h>{'|'.join(HOLIDAYS)})(?:\s+(?P<y>{_YEAR}))?"), "holiday"),
    (
        _compile(r"the\s+(?:(?:early|mid|late)[\s-]+)?(?P<w>" + "|".join(DECADE_WORDS) + ")"),
        "decade",
    ),
    (
        _compile(
            rf"(?P<y>{_YEAR})(?!\s*(?:%|euros?|dollars?|pounds?|km|miles|"
            r"steps|people|words|calories|feet|meters|metres|hours|minutes))"
        ),
        "year",
    ),
    (re.compile(rf"(?<![\w'-])(?P<y>{_YEAR})(?=\s*[-–]\s*{_YEAR}\b)"), "year_dash"),
    (re.compile(rf"(?<=[-–])\s*(?P<y>{_YEAR}){_END}"), "year_after_dash"),
    (
        _compile(rf"(?P<mod>last|next|this|coming|past|previous)\s+(?P<mon>{_FULL_MONTH})"),
        "month_rel",
    ),
    (_compile(rf"(?P<mon>{_FULL_MONTH}|{_MONTH}(?=\s+\d))"), "month"),
    (
        # not a habit: "on Tuesday evenings" (the _END guard already leaves "Tuesdays")
        _compile(
            rf"(?:(?P<mod>last|next|this|coming|past|previous|on)\s+)(?P<wd>{_WEEKDAY})"
            r"(?!\s+(?:mornings|afternoons|evenings|nights)\b)"
        ),
        "weekday",
    ),
    (_compile(r"the\s+day\s+before\s+yesterday"), "day_m2"),
    (_compile(r"the\s+day\s+after\s+tomorrow"), "day_p2"),
    (_compile(r"yesterday"), "day_m1"),
    (_compile(r"(?:today|tonight|this\s+(?:morning|afternoon|evening))"), "day_0"),
    (_compile(r"tomorrow"), "day_p1"),
    (
        _compile(r"(?P<mod>last|next|this|coming|past|previous)\s+(?P<u>week(?:end)?|month|year)"),
        "unit_rel",
    ),
    (_compile(rf"(?P<n>{_NUM})\s+(?P<u>{_UNIT})\s+(?:ago|back|earlier)"), "ago"),
    (
        _compile(rf"(?:the\s+)?(?:past|last|previous)\s+(?P<n>{_NUM})\s+(?P<u>{_UNIT})"),
        "past_n",
    ),
    (_compile(rf"(?:in|within)\s+(?P<n>{_NUM})\s+(?P<u>{_UNIT})(?!\s+(?:ago|back))"), "in_n"),
    (_compile(rf"(?P<n>{_NUM})\s+(?P<u>{_UNIT})\s+from\s+now"), "in_n"),
    (_compile(rf"for\s+(?P<n>{_NUM})\s+(?P<u>{_UNIT})"), "for_n"),
]


def _resolve(kind: str, m: re.Match[str], base: datetime, lean: str) -> When | None:
    g = m.groupdict()
    mod = (g.get("mod") or "").lower()
    mod_lean = {"last": "last", "past": "last", "previous": "last", "next": "next",
                "coming": "next", "this": "this"}.get(mod, lean)  # fmt: skip
    if kind == "iso_day":
        try:
            return When(datetime(int(g["y"]), int(g["m"]), int(g["d"]), tzinfo=UTC), "day")
        except ValueError:
            return None
    if kind == "iso_month":
        return _month(int(g["y"]), int(g["m"]))
    if kind == "full_day":
        return _full_day(m.group(0))
    if kind == "month_day":
        month = MONTHS[g["mon"].lower().rstrip(".")]
        day = int(re.sub(r"\D", "", g["d"]))
        year = _pick_year(month, day, base, mod_lean)
        try:
            return When(datetime(year, month, day, tzinfo=UTC), "day")
        except ValueError:
            return None
    if kind == "holiday":
        month, day = HOLIDAYS[" ".join(g["h"].lower().split())]
        year = int(g["y"]) if g.get("y") else _pick_year(month, day, base, mod_lean)
        return When(datetime(year, month, day, tzinfo=UTC), "day")
    if kind == "month_year":
        return _month(int(g["y"]), MONTHS[g["mon"].lower().rstrip(".")])
    if kind == "season_year":
        return _season(g["s"].lower(), int(g["y"]))
    if kind == "season_rel":
        return _season_rel(g["s"].lower(), base, mod_lean)
    if kind == "decade":
        if g.get("y"):
            year = int(g["y"])
        else:
            two = int(g["yy"]) if g.get("yy") else DECADE_WORDS[g["w"].lower()]
            year = (1900 if two >= 30 else 2000) + two
        return When(datetime(year, 1, 1, tzinfo=UTC), "decade")
    if kind in ("year", "year_dash", "year_after_dash"):
        return When(datetime(int(g["y"]), 1, 1, tzinfo=UTC), "year")
    if kind in ("month_rel", "month"):
        month = MONTHS[g["mon"].lower().rstrip(".")]
        # the month's first day for the past ("started in May" said in May: this May),
        # a day past its last for "last May" (said in May: the year before), ...
        day = {"past": 1, "future": 28, "last": 32, "next": 0}.get(mod_lean, 15)
        return _month(_pick_year(month, day, base, mod_lean), month)
    if kind == "weekday":
        target = WEEKDAYS.index(g["wd"].lower())
        today = base.weekday()
        if mod in ("next", "coming") or (mod in ("on", "this") and lean == "future"):
            ahead = (target - today) % 7 or 7
            return When(_day(base) + timedelta(days=ahead), "day")
        back = (today - target) % 7 or 7
        return When(_day(base) - timedelta(days=back), "day")
    if kind.startswith("day_"):
        offset = {"m2": -2, "m1": -1, "0": 0, "p1": 1, "p2": 2}[kind[4:]]
        return When(_day(base) + timedelta(days=offset), "day")
    if kind == "unit_rel":
        unit = g["u"].lower()
        step = {"last": -1, "next": 1, "this": 0}[
            mod_lean if mod_lean in ("last", "next") else "this"
        ]
        return _shift(base, "week" if unit == "weekend" else unit, step)
    n = _number(g["n"].lower()) if g.get("n") else 0
    unit = g["u"].lower() if g.get("u") else "day"
    if kind in ("ago", "past_n", "for_n"):
        return _shift(base, unit, -n)
    if kind == "in_n":
        return _shift(base, unit, n)
    return None  # pragma: no cover - every reader has a branch above


_SINCE = re.compile(
    r"(?:ever\s+since|since|starting(?:\s+(?:in|on|from))?|as\s+of|beginning(?:\s+in)?|"
    r"effective|from)\s+(?:the\s+)?(?:(?:early|late|mid|end\s+of|start\s+of|beginning\s+of)"
    r"[\s-]+)?$",
    re.IGNORECASE,
)
_UNTIL = re.compile(
    r"(?:until|till|til|'til|up\s+until|up\s+to|through|thru)\s+(?:the\s+(?:end|start|"
    r"beginning)\s+of\s+)?$",
    re.IGNORECASE,
)
# Dates that bound nothing of the fact's own window: "before 2020", "every Monday", a
# deadline ("due on 1 April", "deadline is May 5").
_SKIP = re.compile(
    r"(?:before|after|by|prior\s+to|every|each|due(?:\s+on)?|deadline(?:\s+is)?(?:\s+on)?|"
    r"expires?(?:\s+on)?)\s+(?:the\s+end\s+of\s+)?$",
    re.IGNORECASE,
)
_RANGE_LINK = re.compile(r"^\s*(?:to|until|till|through|thru|and|-|–|—)\s*$", re.IGNORECASE)
_RANGE_OPEN = re.compile(r"(?:from|between)\s+(?:the\s+)?$", re.IGNORECASE)
_FOR_HAVE = re.compile(r"\b(?:have|has|'ve|'s\s+been|been)\b", re.IGNORECASE)


def _find(text: str, base: datetime) -> list[_Found]:
    tense = lean_of(text)
    hits: list[_Found] = []
    for pattern, kind in _READERS:
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 40) : m.start()]
            if kind in _GATED and not _GATE_BEFORE.search(before):
                continue
            lean = tense  # "since June" looks back, "until June" ahead, unless the verb says
            if _SINCE.search(before):
                lean = "future" if tense == "future" else "past"
            elif _UNTIL.search(before):
                lean = "past" if tense == "past" else "future"
            when = _resolve(kind, m, base, lean)
            if when is None:
                continue
            role = "point"
            if kind == "past_n":
                role = "since"
            elif kind == "for_n":
                role = "since" if _FOR_HAVE.search(text[: m.start()]) else "skip"
            hits.append(_Found(m.start(), m.end(), when, role, kind))
    # the longest reading of each stretch of words wins, then the earliest
    hits.sort(key=lambda f: (f.begin, -(f.end - f.begin)))
    kept: list[_Found] = []
    for hit in hits:
        if kept and hit.begin < kept[-1].end:
            if hit.end - hit.begin > kept[-1].end - kept[-1].begin:
                kept[-1] = hit
            continue
        kept.append(hit)
    return kept


#: A day and month that recur every year (a birthday, an anniversary): without a year
#: it is what the fact says, not when it began.
_RECURRING = re.compile(
    r"\b(?:birthdays?|born|birth ?date|date of birth|anniversary|name ?day)\b", re.IGNORECASE
)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
#: "30 August", "August 2", "2nd of May": a day of the year, no year
_DAY_OF_YEAR = re.compile(
    rf"(?:the )?\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTHS}|{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?",
    re.IGNORECASE,
)


def _roles(text: str, found: list[_Found]) -> list[_Found]:
    out: list[_Found] = []
    i = 0
    while i < len(found):
        hit = found[i]
        before = text[max(0, hit.begin - 40) : hit.begin]
        nxt = found[i + 1] if i + 1 < len(found) else None
        if (
            nxt is not None
            and _RANGE_LINK.match(text[hit.end : nxt.begin])
            and (_RANGE_OPEN.search(before) or text[hit.end : nxt.begin].strip() in "-–—")
        ):
            first, second = hit.when, nxt.when
            if first.precision in ("month", "day") and first.start > second.start:
                # "from November to March 2021": the first month is of the year before
                first = When(first.start.replace(year=second.start.year), first.precision)
                if first.start > second.start:
                    first = When(first.start.replace(year=first.start.year - 1), first.precision)
            out.append(_Found(hit.begin, hit.end, first, "range_from"))
            out.append(_Found(nxt.begin, nxt.end, second, "range_to"))
            i += 2
            continue
        role = hit.role
        if role == "point":
            if _SINCE.search(before):
                role = "since"
            elif _UNTIL.search(before):
                role = "until"
            elif _SKIP.search(before):
                role = "skip"
            elif _RECURRING.search(text) and _DAY_OF_YEAR.fullmatch(
                text[hit.begin : hit.end].strip(" .,;:!?")
            ):
                # "My birthday is 30 August": the day is the value, no time it began
                role = "skip"
        out.append(_Found(hit.begin, hit.end, hit.when, role))
        i += 1
    return out


def read_interval(text: str, observed_at: datetime) -> Interval:
    """The world window ``text`` states, read at ``observed_at``: the first date that
    starts the fact (a point, "since …", a range's start) is ``valid_from``, the first
    that ends it ("until …", a range's end) ``valid_to``. Dates after "before", "after",
    "by" and "every" bound nothing and are left out."""
    base = observed_at.astimezone(UTC)
    found = _roles(text, _find(text, base))
    start = next((f for f in found if f.role in ("point", "since", "range_from")), None)
    end = next((f for f in found if f.role in ("until", "range_to")), None)
    if start is not None and end is not None and end.when.start < start.when.start:
        end = None  # "in 2021, until 2019" reads nothing sensible as a window
    cue = " … ".join(text[f.begin : f.end] for f in (start, end) if f is not None)
    return Interval(
        valid_from=start.when.start if start else None,
        valid_to=end.when.start if end else None,
        from_precision=start.when.precision if start else None,
        to_precision=end.when.precision if end else None,
        cue=cue,
    )
