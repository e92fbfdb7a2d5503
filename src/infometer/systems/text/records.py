"""Synthetic patient records: distinct facts per record inside shared boilerplate.

The stand-in for LongHealth-style question answering in the brief: each record holds four
facts about one patient (diagnosis, allergy, medication, ward) in random positions among
boilerplate lines that every record shares.  The query asks for the allergy; a summary is
*accurate* when it contains the allergen.  Boilerplate carries no information about which
record a summary came from, the fact sentences carry it all.
"""

from __future__ import annotations

from dataclasses import dataclass

from infometer.core.data import check_int
from infometer.core.seeding import Seed, as_generator

__all__ = ["Record", "patient_records", "BOILERPLATE"]

_FIRST = "Anna Boris Chen Dara Elif Farid Greta Hugo Ines Jonas Kiri Lena Mateo Nadia Omar".split()
_FIRST += "Priya Quinn Rosa Sven Tara".split()
_LAST = "Abbott Berg Costa Diaz Eriksen Fischer Gomez Haas Ivanova Jansen Kowalski".split()
_LAST += "Larsen Moreau Novak Olsen Petrov".split()
_CONDITIONS = "asthma diabetes hypertension migraine pneumonia gastritis arthritis".split()
_CONDITIONS += "anaemia bronchitis eczema".split()
_ALLERGENS = "penicillin peanuts latex shellfish pollen aspirin sulfa iodine eggs soy".split()
_ALLERGENS += "ibuprofen codeine".split()
_DRUGS = "metformin lisinopril salbutamol omeprazole amlodipine sertraline atorvastatin".split()
_DRUGS += ["levothyroxine"]

#: Lines shared by every record; the first three open every record, in this order.
BOILERPLATE = (
    "Discharge summary of the internal medicine department.",
    "This document is confidential and meant for the treating physicians.",
    "The patient was seen by the ward team during the morning round.",
    "Vital signs were recorded every four hours during the stay.",
    "The patient received the standard information leaflet on discharge.",
    "Follow-up appointments are arranged by the outpatient clinic.",
    "The nursing staff reported no incidents during the night shifts.",
    "Meals were provided according to the hospital diet plan.",
)


@dataclass(frozen=True)
class Record:
    """One record: its text, the query, the answer and the facts."""

    text: str
    query: str
    answer: str
    name: str
    facts: tuple[str, ...]


def patient_records(n: int, *, seed: Seed = 0) -> list[Record]:
    """``n`` records (distinct names) with facts shuffled among the shared boilerplate.

    Parameters
    ----------
    n
        Number of records (at most 320 distinct names).
    seed
        Seed of the generator. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    """
    n = check_int(n, "n", min_value=1, max_value=len(_FIRST) * len(_LAST))
    rng = as_generator(seed)
    names = [f"{f} {s}" for f in _FIRST for s in _LAST]
    chosen = [names[i] for i in rng.choice(len(names), size=n, replace=False)]
    out = []
    for name in chosen:
        cond = str(rng.choice(_CONDITIONS))
        allergen = str(rng.choice(_ALLERGENS))
        drug = str(rng.choice(_DRUGS))
        dose = int(rng.choice([5, 10, 20, 25, 50, 100]))
        ward = int(rng.integers(1, 30))
        year = int(rng.integers(2001, 2024))
        facts = (
            f"{name} was diagnosed with {cond} in {year}.",
            f"{name} is allergic to {allergen}.",
            f"{name} takes {drug} {dose} mg every day.",
            f"{name} stayed on ward {ward}.",
        )
        body = [*facts, *BOILERPLATE[3:]]
        body = [body[i] for i in rng.permutation(len(body))]
        text = " ".join([*BOILERPLATE[:3], *body])
        out.append(
            Record(
                text=text,
                query=f"What is {name} allergic to?",
                answer=allergen,
                name=name,
                facts=facts,
            )
        )
    return out
