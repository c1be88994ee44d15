from .calendar import days_in_month, is_leap_year

__all__ = ["days_in_month", "is_leap_year"]
__version__ = "2.4.0"
