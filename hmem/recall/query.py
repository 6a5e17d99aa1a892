"""Reading the question without a model: past-tense cues, lexical terms, entity grams."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hmem.recall.perfect import perfect_asks_every_value

__all__ = [
    "QueryAnalysis",
    "analyse",
    "dense_text",
    "entity_grams",
    "escape_lucene",
    "is_about_the_past",
    "lexical_words",
    "lucene_names",
    "lucene_query",
    "time_window",
]

# A question about the past makes closed facts (what used to be true) rank as hits.
_PAST_PHRASES = re.compile(
    r"\b(before|used to|use to|previous(?:ly)?|former(?:ly)?|earlier|original(?:ly)?|at first|"
    r"last (?:year|month|week|weekend|night|time|spring|summer|fall|autumn|winter)|"
    r"yesterday|ago|prior|no longer|any ?more|back then|back in|"
    r"in the past|history)\b",
    re.IGNORECASE,
)
# A question about every value a slot has had: "all the names I have given you", "every
# city I lived in", "which cities have I lived in", "what ... over time".
_ALL_VALUES = re.compile(
    r"\b(?:all (?:of )?(?:the |my |his |her |their )?(?:\w+ )?\w+s\b (?:that |which )?"
    r"(?:I|I've|I'd|you|he|she|they|we|(?-i:[A-Z]\w+))(?:'ve|'s)? (?:have |has |had |ever |once )*"
    r"\w+|"
    r"all (?:of )?(?:my|his|her|their|(?-i:[A-Z]\w+)'s) (?:\w+ )?"
    r"(?:names|nicknames|addresses|homes|jobs|employers|titles|favou?rites)\b|"
    r"every (?:single )?(?!(?:day|morning|night|evening|week|weekend|month|year|time)\b)"
    r"(?:\w+ ){1,3}(?:that )?(?:I|I've|he|she|they|we|(?-i:[A-Z]\w+))\b|"
    r"every(?:one|body) (?:that |whom? )?(?:I|I've|he|she|they|we)\b|"
    r"(?:which|what) (?:\w+ )?\w+s (?:have|has|did) (?:I|you|he|she|they|we|(?-i:[A-Z]\w+)) "
    r"(?:ever |once |already )?(?:lived|worked|used|had|gone|been|given|owned|called|named|"
    r"told|gave|use|live|work|have|give|own|tell|go|held|hold|mentioned|mention|liked|like|"
    r"loved|love|preferred|prefer|picked|pick|chosen|choose|tried|try)|"
    r"over (?:the )?(?:time|years)|so far|through the years|along the way)\b",
    re.IGNORECASE,
)
# Dates the question names, by rule: "7 July, 2023" / "July 7th, 2023" (a day), "July
# 2023" (a month), "in 2023" (a year). dateparser's search_dates was tried: it gives one
# instant without its granularity ("in October 2023" -> 2023-10-30), read "the week
# before August 3, 2023" as "2023" and "May I ask" as a date.
_MONTHS = {
    name.lower(): number
    for names in (calendar.month_name, calendar.month_abbr)
    for number, name in enumerate(names)
    if name
} | {"sept": 9}
# the longest first, so "june" is read whole and not as "jun" + "e"
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"  # "7", "7th"
_DAY_MONTH = rf"{_DAY}\s+(?:of\s+)?{_MONTH}"  # "7 July", "the 7th of July" (after "the")
_MONTH_DAY = rf"{_MONTH}\s+{_DAY}"  # "July 7th"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY_MONTH},?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH_DAY},?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|during|of|since|until|by)\s+((?:19|20)\d\d)\b", re.IGNORECASE)
# Without a year, by the search's now: "yesterday", "3 weeks ago", "last month", "in June",
# "on June 5", "last summer" (seasons of the northern hemisphere, by whole months).
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_COUNT = "(" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r"|\d{1,3})"
_AGO = re.compile(rf"\b{_COUNT}\s+(day|week|month|year)s?\s+ago\b", re.IGNORECASE)
_DAY_WORD = re.compile(
    r"\b(the day before yesterday|yesterday|last night|tonight|this (?:morning|"
    r"afternoon|evening))\b",
    re.IGNORECASE,
)
_YESTERDAY = {"yesterday", "last night"}
_THIS_LAST = re.compile(r"\b(this|last)\s+(week|weekend|month|year)\b", re.IGNORECASE)
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}  # first month
_SEASON_YEAR = re.compile(
    r"\b(spring|summer|fall|autumn|winter)(?:\s+of)?,?\s+((?:19|20)\d\d)\b", re.IGNORECASE
)
_SEASON = re.compile(
    r"\b(?:(this|last)|in|during|over)\s+(?:the\s+)?(spring|summer|fall|autumn|winter)\b",
    re.IGNORECASE,
)
_MONTH_NO_YEAR = re.compile(
    rf"\b(?:(this|last)|in|during|since|until|by|of)\s+{_MONTH}(?![\w.]|\.?\s*,?\s*\d)",
    re.IGNORECASE,
)
_DAY_NO_YEAR = re.compile(
    rf"\b(on|before|after|since|until|by)\s+(?:the\s+)?(?:{_DAY_MONTH}|{_MONTH_DAY})(?!,?\s*\d)\b",
    re.IGNORECASE,
)
# A span between two dates: "between August 11 and August 15 2023", "from May to July
# 2023", "from March 3 to 9"; a year on one side serves both.
_RANGE_START = re.compile(r"\b(?:between|from)\s+(?:the\s+)?", re.IGNORECASE)
_RANGE_TO = re.compile(
    r"\s*(?:,\s*)?(?:and|to|until|till|through|-|–)\s+(?:the\s+)?", re.IGNORECASE
)
_YEAR_AFTER = r"(?:,?\s+(\d{4})\b)?"
_POINT_DAY_MONTH = re.compile(rf"{_DAY_MONTH}{_YEAR_AFTER}", re.IGNORECASE)
_POINT_MONTH_DAY = re.compile(rf"{_MONTH_DAY}(?!\d){_YEAR_AFTER}", re.IGNORECASE)
_POINT_MONTH = re.compile(rf"{_MONTH}(?![\w.]){_YEAR_AFTER}", re.IGNORECASE)
_POINT_DAY = re.compile(rf"{_DAY}(?!\d){_YEAR_AFTER}", re.IGNORECASE)
_BEFORE = re.compile(r"\b(?:before|prior to)\s*$", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|since)\s*$", re.IGNORECASE)
# A day named with "before" / "after" opens a window of a month on that side of it.
_AROUND = timedelta(days=31)

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = {"AND", "OR", "NOT", "TO"}
_WORD = re.compile(r"\w+", re.UNICODE)
_TOKEN = re.compile(r"[\w][\w'’.\-]*", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his
    how i if in into is it its itself just me more most my myself no nor not now of off
    on once only or other our ours ourselves out over own same she should so some such
    than that the their theirs them themselves then there these they this those through
    to too under until up very was we were what when where which while who whom why
    will with would you your yours yourself yourselves tell know remember still ever
    """.split()  # noqa: SIM905  (a word list reads better as prose)
)

MAX_TERMS = 32
# Lucene's tokenizer cuts tokens at 255 characters, so a longer word is never in the
# index (asked as a prefix query, one over 1,000 characters failed: "input automaton is
# too large").
MAX_TERM_CHARS = 255
MAX_GRAM = 4


def is_about_the_past(question: str, now: datetime) -> bool:
    """True for questions like "where did Maya live before?", "what did she do in 2019?".

    The rule: a cue word or phrase (before, used/use to, previously, formerly, earlier,
    originally, at first, last year/month/week/weekend/night/season, yesterday, ago,
    prior, no longer, anymore, back then/in, in the past, history), a question about every
    value a slot has had ("all the names I have given you", "every city I lived in",
    "which cities has Sam lived in", "where has my sister worked", "how has my plant
    count changed" unless the question says now, currently, lately ...), or a span of time
    the question names (``time_window``) that was over by ``now``.
    """
    return _about_the_past(question, now, time_window(question, now))


def _about_the_past(question: str, now: datetime, window: tuple[datetime, datetime] | None) -> bool:
    if _PAST_PHRASES.search(question) or _ALL_VALUES.search(question):
        return True
    if perfect_asks_every_value(question):
        return True
    return window is not None and window[1] <= now


def escape_lucene(term: str) -> str:
    """Escape Lucene query syntax so user text can never become an operator."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", term)
    return escaped.lower() if escaped.upper() in _LUCENE_OPERATORS else escaped


def lexical_words(question: str) -> tuple[list[str], list[str]]:
    """The question's content words and its names (words shaped like a name after the
    first, as ``dense_text`` reads them: "Maya", "Paris"; acronyms such as API or LGBTQ
    are content words), casefolded, stop words and duplicates out, at most
    ``MAX_TERMS`` in all."""
    content: list[str] = []
    names: list[str] = []
    for position, word in enumerate(_WORD.findall(question)):
        lower = word.casefold()
        if not 2 <= len(lower) <= MAX_TERM_CHARS or lower in STOPWORDS:
            continue
        if not any(ch.isalpha() or ch.isdecimal() for ch in lower):
            # "__" or "²²": Lucene's analyzer keeps no token of it, and a term clause
            # with no token leaves only the user_id clause, which finds every fact
            continue
        if lower in content or lower in names:
            continue
        (names if position > 0 and _titlecase(word) else content).append(lower)
    content = content[:MAX_TERMS]
    return content, names[: MAX_TERMS - len(content)]


def lucene_query(question: str) -> str | None:
    """An OR of the question's content words (``lexical_words``), each escaped; None
    when there are none. The index's English analyzer stems both sides ("live" finds
    "lives" and "lived"). The names go to the server apart (``lucene_names``): it asks
    for them too, boosted by how few of the user's facts mention each one's entity."""
    terms = [escape_lucene(term) for term in lexical_words(question)[0]]
    return " OR ".join(terms) if terms else None


def lucene_names(question: str) -> list[str]:
    """The question's names (``lexical_words``) as Lucene terms, each escaped."""
    return [escape_lucene(name) for name in lexical_words(question)[1]]


def _clean(token: str) -> str:
    token = token.rstrip(".-'’")
    for suffix in ("'s", "’s"):
        if token.casefold().endswith(suffix):
            token = token[: -len(suffix)]
    return token


def entity_grams(question: str) -> list[str]:
    """Every 1–4 word span of the question in canonical form (casefolded, single
    spaces), as a phrase matcher over the user's entity names and aliases needs them.

    The server matches them against ``Entity.canonical`` and lower-cased aliases, so
    matching is exact on words: "Maya's" matches Maya, "Berlin Marathon" matches the
    two-word entity, "Mayan" does not match Maya.
    """
    tokens = [t for t in (_clean(t) for t in _TOKEN.findall(question)) if t]
    grams: list[str] = []
    seen: set[str] = set()
    for size in range(1, MAX_GRAM + 1):
        for start in range(len(tokens) - size + 1):
            span = tokens[start : start + size]
            if size == 1 and span[0].casefold() in STOPWORDS:
                continue
            phrase = " ".join(span)
            for form in (phrase.casefold(), phrase.lower()):
                if form not in seen:
                    seen.add(form)
                    grams.append(form)
    return grams


def _titlecase(word: str) -> bool:
    """A name's shape: a capital, then lower-case letters ("Maya", "Maya's"); not an
    acronym or product name (API, LGBTQ, iPhone)."""
    letters = [ch for ch in _clean(word) if ch.isalpha()]
    return len(letters) > 1 and letters[0].isupper() and all(ch.islower() for ch in letters[1:])


def dense_text(question: str) -> str:
    """The question as it is embedded: without its names (words shaped like a name,
    "Maya", "Maya's", after the first word; acronyms such as API stay). Every fact of
    Maya's says "Maya", so the name pulled the question's vector toward her shortest
    sentences; the entity signal matches names instead. Measured with the 0.7 / 0.2 /
    0.1 weights on LoCoMo's dev split and BEAM: see docs/retrieval.md."""
    words = question.split()
    kept = [w for position, w in enumerate(words) if position == 0 or not _titlecase(w)]
    return " ".join(kept) if len(kept) > 1 else question


def _day_window(question: str, at: int, day: datetime) -> tuple[datetime, datetime]:
    """The window of a day named at ``at`` in the question."""
    before = question[:at]
    if _BEFORE.search(before):
        return day - _AROUND, day + timedelta(days=1)
    if _AFTER.search(before):
        return day, day + _AROUND
    # a day either side: the question's date and the stored one may sit in other zones
    return day - timedelta(days=1), day + timedelta(days=2)


def time_window(question: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The span of time the question names, [start, end) in UTC, or None.

    With a year: a day ("on 7 July, 2023", "October 13th, 2023"; with "before" / "after"
    a month on that side), a month ("in July 2023"), a season ("summer 2021"), a year
    ("in 2023"), a range ("between August 11 and August 15 2023", "from May to July").
    Without one, by ``now``: a day ("yesterday", "tonight", "on June 5", "3
    days ago"), the week around "2 weeks ago", this / last week, weekend, month or year,
    a month ("in June", "last June": the latest one begun by now) and a season ("last
    summer"; northern hemisphere, whole months). A named day keeps a day either side
    (the question's zone and the stored time's may differ). "Today" is not read: "where
    does Maya live today?" asks what is true now, not what began today."""
    today = _day(now.astimezone(UTC))
    try:
        return _between(question, today) or _dated(question) or _relative(question, today)
    except (ValueError, OverflowError):  # "31 February, 2023", a day beside year 1 or 9999
        return None


@dataclass(frozen=True, slots=True)
class _Point:
    """One side of a range: a month, or a day of it; the year when the text gave one."""

    month: int
    day: int | None
    year: int | None
    end: int  # where its text ends in the question


def _point(question: str, at: int, month: int | None = None) -> _Point | None:
    """The day or month named at ``at``; a bare day ("15") only with the ``month`` of
    the range's other side."""
    match = _POINT_DAY_MONTH.match(question, at)
    if match is not None:
        return _Point(_MONTHS[match[2].lower()], int(match[1]), _year(match[3]), match.end())
    match = _POINT_MONTH_DAY.match(question, at)
    if match is not None:
        return _Point(_MONTHS[match[1].lower()], int(match[2]), _year(match[3]), match.end())
    match = _POINT_MONTH.match(question, at)
    if match is not None:
        return _Point(_MONTHS[match[1].lower()], None, _year(match[2]), match.end())
    match = _POINT_DAY.match(question, at)
    if match is None or month is None:
        return None
    return _Point(month, int(match[1]), _year(match[2]), match.end())


def _year(text: str | None) -> int | None:
    return int(text) if text else None


def _between(question: str, today: datetime) -> tuple[datetime, datetime] | None:
    """ "between August 11 and August 15 2023", "from May to July", "from March 3 to 9":
    from the first side's day (a day early) or month to the second's (a day late, or
    its month's end). A year on one side serves both (the first side a year earlier if
    it would come after the second); with none, the latest such span begun by now."""
    for start in _RANGE_START.finditer(question):
        first = _point(question, start.end())
        if first is None:
            continue
        to = _RANGE_TO.match(question, first.end)
        second = _point(question, to.end(), first.month) if to is not None else None
        if second is None:
            continue
        later = (second.month, second.day or 31) < (first.month, first.day or 1)
        if first.year is not None:
            years = (first.year, second.year or first.year + later)
        elif second.year is not None:
            years = (second.year - later, second.year)
        else:
            years = (today.year - later, today.year)
        span = _span(first, second, years)
        if first.year is None and second.year is None and span[0] > today:
            span = _span(first, second, (years[0] - 1, years[1] - 1))
        return span if span[0] < span[1] else None
    return None


def _span(first: _Point, second: _Point, years: tuple[int, int]) -> tuple[datetime, datetime]:
    if first.day is None:
        start = datetime(years[0], first.month, 1, tzinfo=UTC)
    else:
        start = datetime(years[0], first.month, first.day, tzinfo=UTC) - timedelta(days=1)
    if second.day is None:
        end = _month(years[1], second.month)[1]
    else:
        end = datetime(years[1], second.month, second.day, tzinfo=UTC) + timedelta(days=2)
    return start, end


def _dated(question: str) -> tuple[datetime, datetime] | None:
    for pattern, day_first in ((_DAY_MONTH_YEAR, True), (_MONTH_DAY_YEAR, False)):
        match = pattern.search(question)
        if match is None:
            continue
        day_text, month_text = (match[1], match[2]) if day_first else (match[2], match[1])
        day = datetime(int(match[3]), _MONTHS[month_text.lower()], int(day_text), tzinfo=UTC)
        return _day_window(question, match.start(), day)
    match = _MONTH_YEAR.search(question)
    if match is not None:
        return _month(int(match[2]), _MONTHS[match[1].lower()])
    match = _SEASON_YEAR.search(question)
    if match is not None:  # winter 2021: December 2020 to February 2021
        first = _SEASONS[match[1].lower()]
        return _month(int(match[2]) - (first == 12), first, months=3)
    match = _YEAR.search(question)
    if match is not None:
        return _month(int(match[1]), 1, months=12)
    return None


def _relative(question: str, today: datetime) -> tuple[datetime, datetime] | None:
    match = _DAY_WORD.search(question)
    if match is not None:
        word = match[1].lower()
        back = 2 if word.startswith("the day before") else 1 if word in _YESTERDAY else 0
        return _day_window(question, match.start(), today - timedelta(days=back))
    match = _AGO.search(question)
    if match is not None:
        count = _NUMBERS.get(match[1].lower()) or int(match[1])
        unit = match[2].lower()
        if unit == "day":
            return _day_window(question, match.start(), today - timedelta(days=count))
        if unit == "week":
            middle = today - timedelta(weeks=count)
            return middle - timedelta(days=4), middle + timedelta(days=4)
        if unit == "month":
            return _month(*_months_back(today.year, today.month, count))
        return _month(today.year - count, 1, months=12)
    match = _THIS_LAST.search(question)
    if match is not None:
        back = match[1].lower() == "last"
        unit = match[2].lower()
        monday = today - timedelta(days=today.weekday())
        if unit == "week":
            start = monday - timedelta(weeks=back)
            return start, start + timedelta(weeks=1)
        if unit == "weekend":
            saturday = monday + timedelta(days=-2 if back else 5)
            return saturday, saturday + timedelta(days=2)
        if unit == "month":
            return _month(*_months_back(today.year, today.month, int(back)))
        return _month(today.year - back, 1, months=12)
    match = _DAY_NO_YEAR.search(question)
    if match is not None:
        month = _MONTHS[(match[3] or match[4]).lower()]
        day_text = match[2] or match[5]
        for year in (today.year, today.year - 1):
            day = datetime(year, month, int(day_text), tzinfo=UTC)
            if day <= today:
                return _day_window(question, match.end(1), day)
        return None
    match = _MONTH_NO_YEAR.search(question)
    if match is not None:
        return _latest(today, _MONTHS[match[2].lower()], 1, last=_is_last(match[1]))
    match = _SEASON.search(question)
    if match is not None:
        return _latest(today, _SEASONS[match[2].lower()], 3, last=_is_last(match[1]))
    return None


def _is_last(word: str | None) -> bool:
    return word is not None and word.lower() == "last"


def _day(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def _months_back(year: int, month: int, count: int) -> tuple[int, int]:
    index = year * 12 + month - 1 - count
    return index // 12, index % 12 + 1


def _month(year: int, month: int, months: int = 1) -> tuple[datetime, datetime]:
    """``months`` whole months from the first of (year, month)."""
    end_year, end_month = _months_back(year, month, -months)
    return datetime(year, month, 1, tzinfo=UTC), datetime(end_year, end_month, 1, tzinfo=UTC)


def _latest(today: datetime, month: int, months: int, *, last: bool) -> tuple[datetime, datetime]:
    """The latest span of ``months`` from ``month`` begun by ``today``; with ``last``,
    the latest one already over ("last June" in June is a year ago)."""
    year = today.year
    start, end = _month(year, month, months)
    while start > today or (last and end > today):
        year -= 1
        start, end = _month(year, month, months)
    return start, end


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    about_the_past: bool
    lucene: str | None
    grams: list[str]
    dense: str  # the text to embed (dense_text)
    window: tuple[datetime, datetime] | None = None  # time_window
    names: list[str] = field(default_factory=list)  # lucene_names


def analyse(question: str, now: datetime) -> QueryAnalysis:
    window = time_window(question, now)
    return QueryAnalysis(
        about_the_past=_about_the_past(question, now, window),
        lucene=lucene_query(question),
        grams=entity_grams(question),
        dense=dense_text(question),
        window=window,
        names=lucene_names(question),
    )
