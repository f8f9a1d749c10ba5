"""Numbers, quantities and dates as text states them, with their exact spans.

Units are read by pint (its registry knows "metres", "km²", "°C", "hours" and converts between
them); currencies and scale words ("€77.8 billion") are read here, since pint has neither. Dates
are parsed by dateparser, which also says how precise a date is ("1889" is a year, "March 1889" a
month, "7 November 1867" a day), so each becomes ``xsd:gYear``, ``xsd:gYearMonth`` or
``xsd:date``.

>>> [(q.value, q.unit) for q in quantities("The tower is 35 metres tall and weighs 2.5 t.")]
[(Decimal('35'), 'meter'), (Decimal('2.5'), 'metric_ton')]
>>> [(d.lexical, d.datatype.rsplit("#")[1]) for d in dates("Born on 7 November 1867, died in 1934.")]
[('1867-11-07', 'date'), ('1934', 'gYear')]
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from provgraph.vocab import XSD_NS

_SCALES = {
    "thousand": Decimal(10**3),
    "million": Decimal(10**6),
    "billion": Decimal(10**9),
    "trillion": Decimal(10**12),
}
_CURRENCIES = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_CURRENCY_CODES = frozenset("USD EUR GBP JPY CHF CNY".split())
#: Words pint reads as units that text uses as words ("in" inch, "a" year, "at" attotonne ...).
_NOT_UNITS = frozenset("a an in at as is or to of on by it s t am pm per the and".split()) - {"t"}
_NUMBER = re.compile(
    r"(?P<currency>US\$|[$€£¥])?\s?"
    r"(?<![\w.,])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w]|[.,]\d)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion)\b)?"
    r"(?:\s?(?P<unit>°\s?[CF]\b|[A-Za-zµ°][A-Za-zµ°/]*(?:\s?(?:²|³|\^\d))?))?"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|{_MONTH}\s+\d{{4}}"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|(?P<year>(?:1[0-9]{{3}}|20[0-9]{{2}}))(?![\d,.]\d|s\b|-\w))\b"
)
_PERIODS = {"day": "date", "month": "gYearMonth", "year": "gYear"}


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number as text states it: its value (scale words applied), its unit (pint's name of it,
    or a currency code; None for a bare number) and its span in the text."""

    value: Decimal
    unit: str | None
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class DateValue:
    """A date as text states it: its XSD lexical form and datatype IRI, and its span."""

    lexical: str
    datatype: str
    start: int
    end: int


def quantities(text: str) -> list[Quantity]:
    """The numbers of ``text`` with their units, left to right; a date's year is not one."""
    taken = [(d.start, d.end) for d in dates(text)]
    found = []
    for match in _NUMBER.finditer(text):
        start = match.start("number") if match.group("currency") is None else match.start()
        if any(s <= match.start("number") < e for s, e in taken):
            continue
        try:
            value = Decimal(match.group("number").replace(",", ""))
        except InvalidOperation:
            continue
        if match.group("scale"):
            value *= _SCALES[match.group("scale")]
        end = match.end("scale") if match.group("scale") else match.end("number")
        unit = None
        if match.group("currency"):
            unit = _CURRENCIES[match.group("currency")]
        elif match.group("unit"):
            unit = _unit(match.group("unit"))
            if unit is not None:
                end = match.end("unit")
        # "35" rather than "35.0", and "77800000000" rather than "7.78E+10"
        plain = Decimal(int(value)) if value == value.to_integral() else value
        found.append(Quantity(plain, unit, start, end))
    return found


def convert(quantity: Quantity, unit: str) -> Decimal | None:
    """``quantity`` in ``unit`` (a pint unit expression: "m", "mg", "km^2", "degC"), or None when
    it has no unit or one of another dimension."""
    if quantity.unit is None or quantity.unit in _CURRENCY_CODES:
        return quantity.value if quantity.unit == unit else None
    registry = _registry()
    try:
        converted = registry.Quantity(quantity.value, quantity.unit).to(unit).magnitude
    except Exception:
        return None
    value = Decimal(str(converted))
    return value.quantize(Decimal(1)) if abs(value - value.to_integral()) < Decimal("1e-9") else value.normalize()


def dates(text: str) -> list[DateValue]:
    """The dates of ``text``, left to right, each as precise as it is written."""
    found = []
    for match in _DATE.finditer(text):
        if match.group("year") and _measured(text, match.end()):
            continue  # "1538 °C": a number with a unit, not a year
        parsed = _parse_date(match.group())
        if parsed is not None:
            found.append(DateValue(parsed[0], XSD_NS + parsed[1], match.start(), match.end()))
    return found


_NEXT_WORD = re.compile(r"\s?([^\s.,;:!?)]+)")


def _measured(text: str, end: int) -> bool:
    following = _NEXT_WORD.match(text, end)
    return following is not None and _unit(following.group(1)) is not None


@functools.lru_cache(maxsize=4096)
def _parse_date(text: str) -> tuple[str, str] | None:
    if re.fullmatch(r"\d{4}", text):
        return text, "gYear"
    data = _date_parser().get_date_data(text)
    if data.date_obj is None:
        return None
    kind = _PERIODS.get(data.period or "day", "date")
    moment = data.date_obj
    lexical = {"date": f"{moment:%Y-%m-%d}", "gYearMonth": f"{moment:%Y-%m}", "gYear": f"{moment:%Y}"}[kind]
    return lexical, kind


@functools.lru_cache(maxsize=1)
def _date_parser() -> Any:
    import dateparser.date  # imported on first use: it takes a while to load, and text rarely needs it

    return dateparser.date.DateDataParser(languages=["en"], settings={"PREFER_DAY_OF_MONTH": "first"})


@functools.lru_cache(maxsize=1)
def _registry() -> Any:
    import pint  # its registry takes a third of a second to build: only when text has units

    return pint.UnitRegistry()


@functools.lru_cache(maxsize=4096)
def _unit(text: str) -> str | None:
    text = text.strip()
    if text.lower() in _NOT_UNITS or len(text) > 24:
        return None
    spelled = text.replace("²", "^2").replace("³", "^3").replace("° C", "degC").replace("°C", "degC")
    spelled = spelled.replace("° F", "degF").replace("°F", "degF")
    try:
        unit = _registry().Unit(spelled)
    except Exception:
        return None
    if unit.dimensionless:
        return None
    return str(unit)


__all__ = ["DateValue", "Quantity", "convert", "dates", "quantities"]
