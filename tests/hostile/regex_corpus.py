"""Schema regexes that ek must accept (real tool-schema patterns, and tricky ones that are linear) and
must refuse (each with the cause its message names), with the values that make the bad ones slow.

``ACCEPTED`` maps a pattern to hand-made adversarial prefixes (the text that leads a matcher into the
pattern's repetitions); :mod:`regex_timing` pumps each pattern's own characters after them.
"""

from __future__ import annotations

#: Patterns real tool schemas use: each must be accepted, and must match in linear time.
REAL: dict[str, list[str]] = {
    r"[A-Z]{3}": [],
    r"^[A-Z]{3}$": [],
    r"\d{4}-\d{2}-\d{2}": [],
    r"[^@\s]+@[^@\s]+\.[a-z]{2,}": ["a@", "a@b."],
    r"[a-z0-9_-]+": [],
    r"^[a-zA-Z0-9_-]{1,64}$": [],
    r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$": ["a@", "a@b."],
    r"^#?([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$": ["#"],
    r"^\+?[1-9]\d{1,14}$": ["+1"],
    r"^[0-9]{5}(?:-[0-9]{4})?$": [],
    r"^https?://[^\s/$.?#].[^\s]*$": ["http://a"],
    r"^(\d{1,3}\.){3}\d{1,3}$": ["1."],
    r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$": ["DE12"],
    r"^\d{3}-\d{2}-\d{4}$": [],
    r"^(?:[01]\d|2[0-3]):[0-5]\d$": [],
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$": ["a-"],
    r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$": ["1.2.3-"],
    r"^[\w.-]+$": [],
    r"^\S+$": [],
    r"^[^/]+/[^/]+$": ["a/"],
    r"^[A-Z][a-z]+(?: [A-Z][a-z]+)*$": ["Ab "],
    r"^\$?\d+(\.\d{2})?$": ["$"],
    r"^-?\d+(\.\d+)?$": ["-1."],
    r"-?\d+(\.\d+)?([eE][+-]?\d+)?": ["1.5e"],
    r"^[a-f0-9]{40}$": [],
    r"^[a-z]{2}(-[A-Z]{2})?$": [],
    r"^(?!\s*$).+": [" "],
    r"^\s*\S.*$": [" x"],
    r"^[a-z][a-z0-9-]*[a-z0-9]$": ["a"],
    r"^\d+$": [],
    r"^[1-9][0-9]*$": ["1"],
    r"^(?=.*[A-Z])(?=.*\d).{8,}$": ["A1"],
    r"^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@"
    r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$": ["a@", "a@b.", "a.b@c"],
    r"^(https?|ftp)://[^\s/$.?#].[^\s]*$": ["http://ab"],
    r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$": [],
    r"\d{3}-?\d{3}-?\d{4}": [],
    r"\+?1?[-. ]?\(?\d{3}\)?[-. ]?\d{3}[-. ]?\d{4}": [],
    r"https?://(www\.)?[a-z0-9.-]+(/[^\s]*)?": ["http://", "http://www.", "http://a/"],
    r"\w+(\.\w+)*@\w+(\.\w+)*\.\w{2,}": ["a.", "a@", "a@b."],
    r"[a-z]+(?:\s*,\s*[a-z]+)*": ["a,", "a ,"],
    r"\d{1,3}(?:\.\d{1,3}){3}": [],
    r"(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}": [],
    r"(?i)[a-z]+@[a-z]+\.[a-z]{2,}": ["a@", "a@b."],
    r"[^,]+(,[^,]+)*": ["a,"],
    r"^[a-zA-Z]+( [a-zA-Z]+)*$": ["a "],
    r"[A-Za-z0-9+/]+={0,2}": [],
    r"^[A-Z_][A-Z0-9_]*$": ["A"],
    r"^/[^\s]*$": ["/"],
    r"^(?:\d+[smhd])+$": ["1s"],
    r"^([a-z]+\.)*[a-z]+$": ["a."],
}

#: The regexes ``ek import`` writes for JSON Schema formats and for search (unanchored) patterns.
IMPORT_FORMS: dict[str, list[str]] = {
    r"[^\s@]+@[^\s@]+": ["a@"],
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}": [],
    r"[A-Za-z][A-Za-z0-9+.-]*:\S*": ["a:"],
    r"[\s\S]*(?:\d+)[\s\S]*": [],
    r"[\s\S]*(?:ab)[\s\S]*": [],
    r"[\s\S]*(?:[a-z]+)[\s\S]*": [],
    r"[\s\S]*(?:^\d+)[\s\S]*": [],
    r"[\s\S]*(?:@)[\s\S]*": [],
    r"[\s\S]*(?:\d-\d)[\s\S]*": [],
}

#: Patterns that look dangerous but read each text a bounded number of ways: accepted, linear.
TRICKY_LINEAR: dict[str, list[str]] = {
    r"(a|ab)*c": ["ab"],
    r"(?:\w|\d)+x": [],
    r"(?:ab|ac?){10}": [],
    r"\d{0,8}\d{0,8}\d{0,8}\d{0,8}": [],
    r"(?:[a-z]+,)+[a-z]+": ["a,"],
    r"(?:[^\"\\]|\\.)*": ["\\"],
    r"\d+\.\d+": ["1."],
    r"(?:a|b)*abb": [],
    r"(?s).*": [],
    r"(?:ab)*(?:ba)*": ["ab"],
}

ACCEPTED: dict[str, list[str]] = {**REAL, **IMPORT_FORMS, **TRICKY_LINEAR}

#: Patterns that can take super-linear time, each with the cause its message must name.
REFUSED: dict[str, str] = {
    r"(a+)+b": "a repetition inside a repetition",
    r"(a*)*b": "a repetition inside a repetition",
    r"(\w+\s?)+$": "a repetition inside a repetition",
    r"^(\d+)*$": "a repetition inside a repetition",
    r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$":
        "a repetition inside a repetition",
    r"(ab|ab)*c": "an alternation inside a repetition",
    r"(?:a[a-z]*c|ab)+": "an alternation inside a repetition",
    r"(?:\d?){25}x": "the empty text",
    r"(?:a?b?)*c": "the empty text",
    r"(?:x[a-z]*)*": "a repetition inside a repetition",
    r"(?:a|b?)*c": "the empty text",  # re stops after an empty round, so this one is linear: refused to be safe
    r"a*a*b": "two repetitions one after the other",
    r"[a-z]*x[a-z]*": "two repetitions one after the other",
    r"[a-z]+[a-z]*": "two repetitions one after the other",
    r".+@.+\..+": "two repetitions one after the other",
    r"\d*\.?\d+": "two repetitions one after the other",
    r"^.*\S.*$": "two repetitions one after the other",
    r"[\s\S]*(?:a+b)[\s\S]*": "two repetitions one after the other",
    r"[\s\S]*(?:\d+$)[\s\S]*": "two repetitions one after the other",
    r"(?:\d|\d\d){8}(?:\d|\d\d){8}(?:\d|\d\d){8}x": "too many ways",
    r"(?:(?=.*x)a)*": "a lookaround that reads ahead without bound",
    r"(a)\1": "a backreference",
    r"(a)?(?(1)a|b)": "a conditional group",
    "a" * 2100: "more than 2000 characters",
    # a count past what the automaton expands reads as "a few, then any number": what that finds is unproven
    r"(?:a{1000}){1000}": "a counted repetition too large to check exactly",
    r"(?:a{100})+": "a counted repetition too large to check exactly",
    r"[a-z]{100}[a-z]*": "a counted repetition too large to check exactly",
    r"(?:a+){100}": "a counted repetition too large to check exactly",
}

#: Refused patterns and a value on which ``re`` needs far more than linear time: they show the timing
#: harness can tell (its adversarial values must find what these hand-made ones show).
SLOW_CONTROLS: dict[str, list[str]] = {
    r"a*a*b": [],
    r".+@.+\..+": [],
    r"(a+)+b": [],
    r"\d*\.?\d+": [],
}
