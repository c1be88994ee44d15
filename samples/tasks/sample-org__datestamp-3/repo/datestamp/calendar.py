_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap_year(year):
    """True for leap years of the Gregorian calendar."""
    return year % 4 == 0


def days_in_month(year, month):
    """Number of days in `month` (1-12) of `year`."""
    if not 1 <= month <= 12:
        raise ValueError("month must be in 1..12, got %r" % (month,))
    if month == 2 and is_leap_year(year):
        return 29
    return _DAYS[month - 1]
