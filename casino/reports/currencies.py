"""How many decimals each currency's minor unit has (ISO 4217): amounts are integers of
minor units, shown in major units only at the edge (the PDF)."""

from __future__ import annotations

# ISO 4217 currencies whose minor unit is not a hundredth; every other code has two.
_EXPONENTS: dict[str, int] = {
    **dict.fromkeys(
        ("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI",
         "VND", "VUV", "XAF", "XOF", "XPF"),
        0,
    ),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
    **dict.fromkeys(("CLF", "UYW"), 4),
}  # fmt: skip
DEFAULT_EXPONENT = 2


def minor_unit_exponent(currency: str) -> int:
    """Decimals of the minor unit: 2 for EUR (cents), 0 for JPY, 3 for KWD (fils)."""
    return _EXPONENTS.get(currency, DEFAULT_EXPONENT)
