"""A deterministic reading of the reply's own words: the second witness beside the extraction.

The extraction (a model) records the plan's days; a gullible extractor, or one that obeys an
instruction hidden in the reply, could record a week the reply does not hold. So the critical plan
items also judge the week as this module reads it straight from the text, with regular expressions
and the runner's own zones, and pass only when both readings pass.

What it reads:

* **Day lists in any layout**: bullets, numbered lines, Markdown tables (``| Tue | easy | 8 km |``),
  ``Tuesday - ...`` lines and prose (``On Tuesday run 8 km easy; Wednesday is a rest day.``).
  A day written again later (``rest before Sunday's long run``) does not replace the day's own line.
* **Units**: km, metres, miles (``5 mi`` = 8.05 km) and paces per km or per mile (``8:30/mi``).
* **Sessions given by time** (``45 min easy``, ``20 min on the track``): a run day, its distance
  estimated from the runner's own zones (:func:`estimate_km`).
* **The session's kind** from its words: rest, easy, long, tempo/threshold, marathon or goal pace,
  track (intervals, repetitions, ``6 x 400 m``, and any repeats of 300 m or a minute and more, such
  as ``6 x 1 km at 4:10/km`` with no session word), race.
* **Runs added in prose** outside the day list (``double up on Thursday``, ``add a second run``).

It reads conservatively: a text without at least :data:`MIN_DAYS` distinct day names is "no day
list", and the checks then fall back to the extraction's verbatim day quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MILE_KM", "ParsedDay", "added_runs", "estimate_km", "parse_days", "paces_in", "quantity", "squash"]

MILE_KM = 1.609344

#: Fewer distinct day names than this: the reply holds no day list this reader can trust.
MIN_DAYS = 4

_DAYS = {
    "mon": "Mon",
    "monday": "Mon",
    "tue": "Tue",
    "tues": "Tue",
    "tuesday": "Tue",
    "wed": "Wed",
    "weds": "Wed",
    "wednesday": "Wed",
    "thu": "Thu",
    "thur": "Thu",
    "thurs": "Thu",
    "thursday": "Thu",
    "fri": "Fri",
    "friday": "Fri",
    "sat": "Sat",
    "saturday": "Sat",
    "sun": "Sun",
    "sunday": "Sun",
}
DAY_ORDER = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAY_RE = re.compile(r"\b(" + "|".join(sorted(_DAYS, key=len, reverse=True)) + r")\b\.?", re.I)
_DAY_N_RE = re.compile(r"\bday\s+([1-7])\b", re.I)
#: A line that begins with a day (after list or table markup): the day's own line.
_LINE_START = re.compile(r"^[\s>*_#|\-•·\d.)]*$")

_NUM = r"(\d+(?:[.,]\d+)?)"
_RANGE = _NUM + r"(?:\s*(?:-|–|—|to)\s*" + _NUM + r")?"
_DIST_UNIT = r"(km|kms|kilomet(?:er|re)s?|k|mi|miles?|m|meters?|metres?)"
_DIST_RE = re.compile(_RANGE + r"(?:\s*|-)" + _DIST_UNIT + r"(?![a-z/])(?!\s*(?:race|pace|goal|effort|pb)\b)", re.I)
_TIME_RE = re.compile(
    r"(?:(\d+)\s*(?:h|hr|hrs|hours?)\s*(\d+)?\s*(?:min|mins|minutes|m)?|"
    + _RANGE
    + r"(?:\s*|-)(min|mins|minutes|minute|mn|′|'))(?![a-z/])",
    re.I,
)
_CLOCK_H_RE = re.compile(r"\b(\d):([0-5]\d)\s*(?:h|hr|hrs|hours?)\b", re.I)
_REPS_RE = re.compile(
    r"(\d+)\s*(?:x|×|\*)\s*" + _NUM + r"\s*(km|k|mi|miles?|m|meters?|metres?|min|mins|minutes|s|sec|seconds)\b", re.I
)
_PACE_RE = re.compile(
    r"(\d{1,2}):([0-5]\d)(?:\s*(?:-|–|—|to)\s*(\d{1,2}):([0-5]\d))?\s*(?:min)?\s*(?:/|per\s+)\s*"
    r"(km|kilomet\w*|mi\b|mile)",
    re.I,
)

_REST_RE = re.compile(
    r"\b(rest|off|day off|no run(?:ning)?|recover(?:y)? day|cross[- ]?train\w*|yoga|swim|bike|"
    r"cycling|strength|mobility)\b",
    re.I,
)
_TRACK_RE = re.compile(
    r"\b(track|intervals?|vo2\s*max|vo2|repetitions?|reps|i[- ]pace|r[- ]pace)\b|"
    r"\d+\s*(?:x|×)\s*(?:[2-9]\d\d|1\d{3}|2000)\s*(?:m|meters?|metres?)\b",
    re.I,
)
#: Short relaxed accelerations are part of an easy run, not a track session.
_STRIDES_RE = re.compile(r"\b(strides?|pick-?ups?|accelerations?)\b", re.I)
_TEMPO_RE = re.compile(r"\b(tempo|threshold|cruise|lactate|t[- ]pace)\b", re.I)
_PACEWORK_RE = re.compile(
    r"\b(marathon[- ]pace|mp|race[- ]pace|goal[- ]pace|half[- ]marathon[- ]pace|hmp|"
    r"10\s?k[- ]pace|5\s?k[- ]pace)\b",
    re.I,
)
_RACE_RE = re.compile(r"\b(race|parkrun|time[- ]trial)\b(?![- ](?:pace|specific|day|week|goal|weight))", re.I)
_LONG_RE = re.compile(r"\blong\b", re.I)
_EASY_PART_RE = re.compile(r"\b(easy|warm[- ]?up|cool[- ]?down|wu|cd|jog|recover\w*)\b", re.I)


_TYPOGRAPHY = str.maketrans(
    {"–": "-", "—": "-", "‑": "-", "’": "'", "‘": "'", "“": '"', "”": '"', "×": "x", "\u00a0": " ", "\u202f": " "}
)


def squash(text: str) -> str:
    """Text for verbatim comparison: markup, spacing and typographic variants (dashes, quotes, ×)
    ignored, case folded: a quote copied verbatim still matches when the copy normalised them."""
    return " ".join(re.sub(r"[*_`|]", " ", text.translate(_TYPOGRAPHY)).split()).casefold()


def _f(s: str | None) -> float | None:
    return float(s.replace(",", ".")) if s else None


def _to_km(value: float, unit: str) -> float:
    u = unit.lower()
    if u.startswith("mi"):
        return value * MILE_KM
    if u in ("m", "meter", "meters", "metre", "metres"):
        return value / 1000.0
    return value


def paces_in(text: str) -> list[float]:
    """Every pace written in `text`, in seconds per km (``8:00/mi`` -> 298)."""
    out = []
    for m in _PACE_RE.finditer(text):
        per_mile = m.group(5).lower().startswith("mi")
        for mm, ss in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
            if mm is not None:
                sec = int(mm) * 60 + int(ss)
                out.append(round(sec / MILE_KM, 1) if per_mile else float(sec))
    return out


@dataclass
class Quantity:
    """What a day's words say about its size: the total km and/or minutes, and its fast part."""

    km: float | None = None
    minutes: float | None = None
    reps_km: float = 0.0
    reps_minutes: float = 0.0
    parts_km: list[tuple[float, bool]] = field(default_factory=list)  # (km, labelled easy)


def quantity(text: str) -> Quantity:
    """The day's total (the first distance or time that is not a repeat or a pace) and its repeats."""
    q = Quantity()
    spans = [m.span() for m in _PACE_RE.finditer(text)]
    for m in _REPS_RE.finditer(text):
        spans.append(m.span())
        n, size, unit = int(m.group(1)), _f(m.group(2)) or 0.0, m.group(3).lower()
        if unit.startswith("min"):
            q.reps_minutes += n * size
        elif unit.startswith("s"):
            q.reps_minutes += n * size / 60.0
        else:
            q.reps_km += n * _to_km(size, unit)
    inside = lambda pos: any(a <= pos < b for a, b in spans)  # noqa: E731
    found = []  # (km, start, end, labelled easy)
    for m in _DIST_RE.finditer(text):
        if inside(m.start()):
            continue
        lo, hi = _f(m.group(1)), _f(m.group(2))
        unit = m.group(3)
        if unit.lower() == "m" and (lo or 0) < 100:
            continue  # "45 m" is more likely minutes than metres; times are read below
        km = _to_km(((lo or 0) + (hi if hi is not None else lo or 0)) / 2, unit)
        tail = re.split(r"[,;+(|]|\bthen\b|\band\b", text[m.end() : m.end() + 24])[0]  # the words naming this part
        found.append((round(km, 2), m.start(), m.end(), bool(_EASY_PART_RE.search(tail))))
    total = _total(text, found)
    if total is not None:
        q.km = round(found[total][0], 2)
        q.parts_km = [(k, easy) for i, (k, _, _, easy) in enumerate(found) if i != total]
    elif found:  # the day is the sum of its parts ("2 km warm-up, 5 km tempo, 2 km cool-down")
        q.km = round(sum(k for k, *_ in found) + q.reps_km, 2)
        q.parts_km = [(k, easy) for k, _, _, easy in found]
    for m in _CLOCK_H_RE.finditer(text):
        if not inside(m.start()) and q.minutes is None:
            q.minutes = int(m.group(1)) * 60 + int(m.group(2))
            spans.append(m.span())
    for m in _TIME_RE.finditer(text):
        if inside(m.start()) or q.minutes is not None:
            continue
        if m.group(1):
            q.minutes = int(m.group(1)) * 60 + int(m.group(2) or 0)
        else:
            lo, hi = _f(m.group(3)), _f(m.group(4))
            q.minutes = ((lo or 0) + (hi if hi is not None else lo or 0)) / 2
    return q


_TOTAL_AFTER = re.compile(
    r"^\s*(?:total|in total|in all|overall)?\s*(?::|with\b|incl|including|containing|of which|\(|—|–|- [a-z])", re.I
)
_SUM_WORDS = re.compile(r"\+|\bthen\b|followed by|\bplus\b|warm|cool|\bwu\b|\bcd\b", re.I)


def _reps_km(text: str) -> float:
    return sum(
        int(m.group(1)) * _to_km(_f(m.group(2)) or 0.0, m.group(3))
        for m in _REPS_RE.finditer(text)
        if not m.group(3).lower().startswith(("min", "s"))
    )


def _total(text: str, found: list[tuple[float, int, int, bool]]) -> int | None:
    """Which of the day's distances is its total, or None when the day is the sum of its parts: a
    table cell holding only a distance; a distance called the total; a first distance the rest is
    said to be part of ("12 km: ...", "7 km with ...", "18 km incl. ..."); the largest when the
    others are not added to it."""
    if not found:
        return None
    if len(found) == 1:
        return 0
    for i, (_, a, b, _) in enumerate(found):
        cell_start, cell_end = text.rfind("|", 0, a), text.find("|", b)
        if (
            cell_start >= 0
            and cell_end >= 0
            and not re.search(
                r"[a-z0-9]",
                re.sub(
                    r"(?i)\b(total|approx\w*|about|ca)\b|km|mi\w*|~", "", text[cell_start + 1 : a] + text[b:cell_end]
                ),
            )
        ):
            return i
        if re.search(r"total", text[max(0, a - 12) : a] + text[b : b + 12], re.I):
            return i
    if _TOTAL_AFTER.match(text[found[0][2] : found[0][2] + 20]):
        return 0
    reps = _reps_km(text)
    for i, (km, a, b, _) in enumerate(found):  # "(15 km)" or "= 15 km" after its parts: the day's sum
        others = sum(k for j, (k, *_) in enumerate(found) if j != i) + reps
        if re.search(r"[(=]\s*(?:~|about|approx\.?|ca\.?)?\s*$", text[max(0, a - 10) : a]) and km >= others - 1e-9:
            return i
    between = text[found[0][1] : found[-1][2]]
    if _SUM_WORDS.search(between) or _SUM_WORDS.search(text[found[0][2] :]):
        biggest = max(range(len(found)), key=lambda i: found[i][0])
        rest = sum(k for j, (k, *_) in enumerate(found) if j != biggest)
        return biggest if found[biggest][0] >= rest + 1e-9 and not _SUM_WORDS.search(between) else None
    return max(range(len(found)), key=lambda i: found[i][0])


_NOT_BEFORE = re.compile(
    r"\b(no|not|never|skip\w*|without|avoid\w*|instead of|rather than|postpone\w*|drop\w*|replac\w*)\b"
    r"[^.;:,|]{0,20}$",
    re.I,
)
_RUN_WORDS = re.compile(
    r"\b(run|runs|running|jog\w*|easy|tempo|threshold|long|km|kms|mi|miles?|strides|intervals?|"
    r"track|reps|pace)\b",
    re.I,
)
#: Words that make a day of another sport a running day after all ("easy" may describe a bike ride).
_RUNNING = re.compile(r"\b(run|runs|running|jog\w*|km|kms|mi|miles?|tempo|strides|intervals?|track|long)\b", re.I)
_OTHER_SPORT = re.compile(
    r"\b(cross[- ]?train\w*|bike|biking|cycl\w*|swim\w*|yoga|pilates|strength|mobility|"
    r"elliptical|walk\w*|hike|hiking|gym)\b",
    re.I,
)


def _said(pattern: re.Pattern[str], text: str) -> bool:
    """`pattern` occurs in `text` other than negated ("no tempo this week", "skip the track")."""
    return any(not _NOT_BEFORE.search(text[: m.start()]) for m in pattern.finditer(text))


def kind_of(text: str) -> str:
    """The session's kind from its words: rest, track, tempo, pace (marathon or goal pace), race,
    long or easy. Negated words do not count ("8 km easy, no tempo"); a day of another sport only
    (bike, swim, strength) is a rest day from running; a day whose words name a running distance or
    time is never rest ("rest" may be a jog recovery between repeats)."""
    q = quantity(text)
    if q.km is None and q.minutes is None and not q.reps_km and not q.reps_minutes:
        return "rest" if _REST_RE.search(text) or not text.strip() else "unknown"
    if _OTHER_SPORT.search(text) and not _RUNNING.search(_OTHER_SPORT.sub(" ", text)):
        return "rest"
    if re.search(r"\b(rest|off)\b", text, re.I) and not _RUN_WORDS.search(text) and not re.search(r"\bmin", text):
        return "rest"
    if _said(_TRACK_RE, text) and not (
        _STRIDES_RE.search(text) and not re.search(r"\b(track|intervals?|reps)\b", text, re.I)
    ):
        return "track"
    if _said(_TEMPO_RE, text):
        return "tempo"
    if _said(_PACEWORK_RE, text):
        return "pace"
    if _said(_RACE_RE, text):
        return "race"
    if _repeats(text) and not _STRIDES_RE.search(text):
        return "track"  # "6 x 1 km at 4:10/km", "5 x 3 min hard": intervals, whatever the session is called
    if _LONG_RE.search(text):
        return "long"
    return "easy"


def _repeats(text: str) -> bool:
    """Repeats of a size no stride has (from 300 m or a minute each): "6 x 1 km", "5 x 3 min"."""
    for m in _REPS_RE.finditer(text):
        n, size, unit = int(m.group(1)), _f(m.group(2)) or 0.0, m.group(3).lower()
        minutes = size if unit.startswith("min") else size / 60.0 if unit.startswith("s") else None
        if n >= 2 and (minutes >= 1.0 if minutes is not None else _to_km(size, unit) >= 0.3):
            return True
    return False


#: The extraction's session kinds each reader kind stands for.
KIND_SESSIONS = {
    "rest": {"rest"},
    "track": {"interval", "repetition"},
    "tempo": {"tempo", "threshold"},
    "pace": {"marathon", "race_pace", "tempo", "threshold"},
    "race": {"race"},
    "long": {"long", "easy"},
    "easy": {"easy", "long"},
}
#: The session this reader assumes for a kind when it judges the week itself.
KIND_SESSION = {
    "rest": "rest",
    "track": "interval",
    "tempo": "tempo",
    "pace": "marathon",
    "race": "race",
    "long": "long",
    "easy": "easy",
    "unknown": "easy",
}


def estimate_km(minutes: float, session: str, zones: dict[str, Any] | None, paces: list[float] | None = None) -> float:
    """The distance of a session given by time, from the runner's own paces: the day's own target
    pace when it gives one; else the middle of the easy zone for easy and long runs, and the fast
    end of the easy zone for a quality session (its warm-up, recoveries and cool-down are easy,
    its repeats faster: on average about the easy zone's fast end). Without zones, 6:00/km."""
    if paces:
        sec = sum(paces) / len(paces)
    elif zones and "easy" in zones:
        easy = zones["easy"]
        fast, slow = easy["fast_sec_per_km"], easy["slow_sec_per_km"]
        sec = fast if session not in ("easy", "long", "rest") else (fast + slow) / 2
    else:
        sec = 360.0
    return round(minutes * 60.0 / sec, 2)


@dataclass
class ParsedDay:
    day: str
    kind: str
    km: float
    minutes: float | None
    quality_km: float | None
    paces: list[float]
    text: str

    @property
    def runs(self) -> bool:
        return self.kind not in ("rest", "unknown") and self.km > 0

    def as_extracted(self) -> dict[str, Any]:
        """This day in the extraction's shape, so the same week figures apply to both readings."""
        return {
            "day": self.day,
            "session": KIND_SESSION[self.kind] if self.runs else "rest",
            "km": self.km if self.runs else 0,
            "quality_km": self.quality_km,
            "quote": self.text[:120],
            "pace_fast_sec_per_km": min(self.paces) if self.paces else None,
            "pace_slow_sec_per_km": max(self.paces) if self.paces else None,
        }


def _segments(text: str) -> dict[str, str]:
    """Each day's own words. A day's segment runs from its name to the next day name or the end of
    its line or sentence; days named together ("Mon and Wed: rest") share the words that follow."""
    found: dict[str, tuple[int, str]] = {}  # day -> (rank: 0 = own line, 1 = prose), words
    for line in _unwrap(text).splitlines():
        hits = [(m.start(), m.end(), _DAYS[m.group(1).lower()]) for m in _DAY_RE.finditer(line)]
        hits += [(m.start(), m.end(), DAY_ORDER[int(m.group(1)) - 1]) for m in _DAY_N_RE.finditer(line)]
        hits.sort()
        if not hits:
            continue
        pending: list[tuple[str, int]] = []
        for i, (start, end, day) in enumerate(hits):
            nxt = hits[i + 1][0] if i + 1 < len(hits) else len(line)
            words = line[end:nxt]
            sentence_end = re.search(
                r"(?<!\d)(?<!\bincl)(?<!\bapprox)(?<!\bca)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)"
                r"[.;!?](?!\d)\s",
                words + " ",
            )  # "incl. 3 km" ends no sentence
            own = words[: sentence_end.start()] if sentence_end else words
            rank = 0 if _LINE_START.match(line[:start]) else 1
            if re.fullmatch(r"[\s,*_&|()\[\]]*(and|or|&|,|/|-)?[\s,*_|()\[\]]*", own) and i + 1 < len(hits):
                pending.append((day, rank))  # "Mon and Wed: rest": Mon shares Wed's words
                continue
            for d, r in pending + [(day, rank)]:
                if (
                    d not in found
                    or r < found[d][0]
                    or (r == found[d][0] and not _has_size(found[d][1]) and _has_size(own))
                ):
                    found[d] = (r, own)
            pending = []
    return {d: w for d, (_, w) in found.items()}


_BLOCK_START = re.compile(r"^\s*(?:[-*•·|#>]|\d+[.)]\s|\*\*|(?:" + "|".join(_DAYS) + r")\b|day\s+[1-7]\b)", re.I)


def _unwrap(text: str) -> str:
    """Prose hard-wrapped over several lines joined back into one line per paragraph; list items,
    table rows, headings and lines that begin with a day stay lines of their own."""
    out: list[str] = []
    for line in text.splitlines():
        if out and out[-1].strip() and line.strip() and not _BLOCK_START.match(line):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def _has_size(words: str) -> bool:
    q = quantity(words)
    return q.km is not None or q.minutes is not None or bool(q.reps_km)


def parse_days(text: str, zones: dict[str, Any] | None = None) -> list[ParsedDay] | None:
    """The reply's week read day by day, or None when it holds no day list (fewer than MIN_DAYS
    distinct day names). Days the reply leaves out are not invented: the week figures count them as
    rest, as they do for the extraction."""
    segments = _segments(text)
    if len(segments) < MIN_DAYS:
        return None
    out = []
    for day in sorted(segments, key=DAY_ORDER.index):
        words = segments[day]
        kind = kind_of(words)
        q = quantity(words)
        paces = paces_in(words)
        session = KIND_SESSION.get(kind, "easy")
        km = q.km
        if km is None and q.minutes is not None:
            km = estimate_km(q.minutes, session, zones, paces if kind in ("easy", "long") else None)
        if km is None and (q.reps_km or q.reps_minutes):
            km = q.reps_km + (estimate_km(q.reps_minutes, session, zones) if q.reps_minutes else 0)
        quality = None
        if kind in ("track", "tempo", "pace", "race"):
            fast = q.reps_km + (estimate_km(q.reps_minutes, session, zones, paces) if q.reps_minutes else 0)
            if not fast:
                fast = sum(k for k, easy in q.parts_km if not easy)
            quality = round(fast, 2) if 0 < fast <= (km or 0) + 1e-9 else None
        out.append(ParsedDay(day, kind, round(km or 0.0, 2), q.minutes, quality, paces, words.strip()))
    return out


_ADDED_RUN_RE = re.compile(
    r"\b(double[sd]?[- ]up|(?:a|run|do|add|with|plus)\s+(?:an?\s+)?(?:\w+\s+)?doubles?\b|doubles?\s+(?:on|day|run)s?|"
    r"(?:run|go)\s+twice\s+(?:on\s+\w+day|that\s+day|a\s+day|in\s+one\s+day)\b|twice\s+(?:a|that|on|this)\s+day|two\s+runs\s+(?:on|that|a)\b|"
    r"a\s+second\s+(?:short\s+|easy\s+|\d+\s*(?:km|mi|min)\s+)?run|second\s+run\s+(?:that|the\s+same|in\s+the)|2nd\s+run|"
    r"(?:an?\s+)?extra\s+(?:\w+\s+){0,2}(?:run|jog)|additional\s+(?:\w+\s+){0,2}(?:run|jog)|"
    r"add(?:ing)?\s+(?:a|an|another)\s+(?:\w+\s+){0,3}(?:run|jog|shake-?out)|"
    r"am\s+and\s+pm|a\.m\.\s+and\s+p\.m\.|morning\s+and\s+(?:an?\s+)?evening\s+run)\b",
    re.I,
)
#: A sentence about a later time ("once your ACWR settles, add a fifth run") does not change this week.
_LATER_RE = re.compile(
    r"\b(once|when|whenever|after (?:the|this|your)|later|in (?:a few|two|three|four|\d+) weeks|"
    r"next month|months?|future|eventually|following week|week after|next block|down the road|"
    r"over time|in time|from week|build(?:ing)? up to)\b",
    re.I,
)
_NEGATED_RE = re.compile(r"\b(no|not|never|don't|do not|avoid|skip|without|instead of|rather than)\b[^.;]{0,30}$", re.I)


def added_runs(text: str) -> list[str]:
    """Sentences that add a run to the week (a double, a second run, an extra run), unless negated
    ("no doubles this week"). Read from the whole reply: the day list's own words count too, since
    a "double" inside a day's line is still a second run that day."""
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text):
        if _LATER_RE.search(sentence):
            continue
        for m in _ADDED_RUN_RE.finditer(sentence):
            if not _NEGATED_RE.search(sentence[: m.start()]):
                out.append(sentence[m.start() :].strip())  # from the keyword on: its size follows it
                break
    return out
