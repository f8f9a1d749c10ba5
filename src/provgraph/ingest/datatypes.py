"""Lexical checks of typed literals against their XSD datatype.

RDF lets ``"abc"^^xsd:integer`` through as an "ill-typed" literal, and Oxigraph stores it as it
came; ``"-5"^^xsd:nonNegativeInteger`` is even stored as the integer -5. A document saying so is
wrong, and ingest refuses it (or, with ``lenient``, keeps it and counts it). The rules are XML
Schema 1.1 Part 2's lexical spaces and, for the bounded integer types, their value ranges.
Datatypes not listed here (strings, anyURI, language, rdf:HTML ...) are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from provgraph.vocab import XSD_NS

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLOAT = re.compile(r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN)")
_TZ = r"(?P<tz>Z|[+-](?P<tzh>[0-9]{2}):(?P<tzm>[0-9]{2}))?"
_YEAR = r"(?P<year>-?(?:[1-9][0-9]{4,}|[0-9]{4}))"
_TIME = r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2}(?:\.[0-9]+)?)"
_DATE = re.compile(_YEAR + r"-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})" + _TZ)
_DATETIME = re.compile(_YEAR + r"-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})T" + _TIME + _TZ)
_TIME_ONLY = re.compile(_TIME + _TZ)
_GYEAR = re.compile(_YEAR + _TZ)
_GYEARMONTH = re.compile(_YEAR + r"-(?P<month>[0-9]{2})" + _TZ)
_GMONTH = re.compile(r"--(?P<month>[0-9]{2})" + _TZ)
_GDAY = re.compile(r"---(?P<day>[0-9]{2})" + _TZ)
_GMONTHDAY = re.compile(r"--(?P<month>[0-9]{2})-(?P<day>[0-9]{2})" + _TZ)
_DURATION = re.compile(
    r"-?P(?=[0-9T])(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?)?"
)
_YEARMONTH_DURATION = re.compile(r"-?P(?=[0-9])(?:[0-9]+Y)?(?:[0-9]+M)?")
_DAYTIME_DURATION = re.compile(
    r"-?P(?=[0-9T])(?:[0-9]+D)?(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?)?"
)
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_BOOLEAN = frozenset({"true", "false", "1", "0"})

_RANGES: dict[str, tuple[int | None, int | None]] = {
    "integer": (None, None),
    "nonPositiveInteger": (None, 0),
    "negativeInteger": (None, -1),
    "nonNegativeInteger": (0, None),
    "positiveInteger": (1, None),
    "long": (-(2**63), 2**63 - 1),
    "int": (-(2**31), 2**31 - 1),
    "short": (-(2**15), 2**15 - 1),
    "byte": (-(2**7), 2**7 - 1),
    "unsignedLong": (0, 2**64 - 1),
    "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 2**8 - 1),
}


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _integer(name: str) -> Callable[[str], str | None]:
    low, high = _RANGES[name]

    def check(text: str) -> str | None:
        if not _INTEGER.fullmatch(text):
            return "not an integer"
        if low is None and high is None:
            return None
        value = int(text)
        if low is not None and value < low:
            return f"below the minimum {low}"
        if high is not None and value > high:
            return f"above the maximum {high}"
        return None

    return check


def _pattern(pattern: re.Pattern[str], what: str) -> Callable[[str], str | None]:
    def check(text: str) -> str | None:
        return None if pattern.fullmatch(text) else what

    return check


def _temporal(pattern: re.Pattern[str], what: str, *, tz_required: bool = False) -> Callable[[str], str | None]:
    def check(text: str) -> str | None:
        found = pattern.fullmatch(text)
        if found is None:
            return f"not {what}"
        fields = found.groupdict()
        month = int(fields["month"]) if fields.get("month") else None
        if month is not None and not 1 <= month <= 12:
            return f"month {month} out of range"
        if fields.get("day"):
            day = int(fields["day"])
            # a day without a year (gMonthDay) may be 29 February
            limit = _days_in_month(int(fields["year"]) if fields.get("year") else 2000, month) if month else 31
            if not 1 <= day <= limit:
                return f"day {day} out of range" + (f" for month {month}" if month else "")
        if fields.get("hour") is not None:
            hour, minute, second = int(fields["hour"]), int(fields["minute"]), float(fields["second"])
            if hour == 24 and (minute, second) != (0, 0):
                return "24:00:00 is the only time with hour 24"
            if hour > 24 or minute > 59 or second >= 60:
                return f"time {fields['hour']}:{fields['minute']}:{fields['second']} out of range"
        if fields.get("tzh") is not None:
            tzh, tzm = int(fields["tzh"]), int(fields["tzm"])
            if tzm > 59 or tzh > 14 or (tzh == 14 and tzm != 0):
                return "time zone offset out of range (-14:00 to +14:00)"
        if tz_required and not fields.get("tz"):
            return "a time zone is required"
        return None

    return check


def _boolean(text: str) -> str | None:
    return None if text in _BOOLEAN else "not true, false, 1 or 0"


_CHECKS: dict[str, Callable[[str], str | None]] = {XSD_NS + name: _integer(name) for name in _RANGES}
_CHECKS.update(
    {
        XSD_NS + "decimal": _pattern(_DECIMAL, "not a decimal number"),
        XSD_NS + "double": _pattern(_FLOAT, "not a floating-point number"),
        XSD_NS + "float": _pattern(_FLOAT, "not a floating-point number"),
        XSD_NS + "boolean": _boolean,
        XSD_NS + "date": _temporal(_DATE, "a date (YYYY-MM-DD)"),
        XSD_NS + "dateTime": _temporal(_DATETIME, "a date-time (YYYY-MM-DDThh:mm:ss)"),
        XSD_NS + "dateTimeStamp": _temporal(_DATETIME, "a date-time with time zone", tz_required=True),
        XSD_NS + "time": _temporal(_TIME_ONLY, "a time (hh:mm:ss)"),
        XSD_NS + "gYear": _temporal(_GYEAR, "a year (YYYY)"),
        XSD_NS + "gYearMonth": _temporal(_GYEARMONTH, "a year and month (YYYY-MM)"),
        XSD_NS + "gMonth": _temporal(_GMONTH, "a month (--MM)"),
        XSD_NS + "gDay": _temporal(_GDAY, "a day (---DD)"),
        XSD_NS + "gMonthDay": _temporal(_GMONTHDAY, "a month and day (--MM-DD)"),
        XSD_NS + "duration": _pattern(_DURATION, "not a duration (PnYnMnDTnHnMnS)"),
        XSD_NS + "yearMonthDuration": _pattern(_YEARMONTH_DURATION, "not a year-month duration (PnYnM)"),
        XSD_NS + "dayTimeDuration": _pattern(_DAYTIME_DURATION, "not a day-time duration (PnDTnHnMnS)"),
        XSD_NS + "hexBinary": _pattern(_HEX, "not hexadecimal octets"),
        XSD_NS + "base64Binary": _pattern(_BASE64, "not base64"),
    }
)

#: The datatypes whose lexical forms are checked.
CHECKED_DATATYPES = frozenset(_CHECKS)


def literal_problem(lexical: str, datatype: str) -> str | None:
    """Why ``lexical`` is not a valid form of ``datatype`` (an IRI), or ``None`` if it is (or the
    datatype is not one checked). Surrounding whitespace is refused: XSD would collapse it, but
    Oxigraph does not, and would keep ``" 5 "^^xsd:integer`` as a string that is no number."""
    check = _CHECKS.get(datatype)
    if check is None:
        return None
    if datatype == XSD_NS + "base64Binary":
        return check(re.sub(r"[ \t\n\r]", "", lexical))
    return check(lexical)


__all__ = ["CHECKED_DATATYPES", "literal_problem"]
