import unittest

from datestamp import days_in_month, is_leap_year


class LeapYearTest(unittest.TestCase):
    def test_common_leap_year(self):
        self.assertTrue(is_leap_year(2024))

    def test_common_year(self):
        self.assertFalse(is_leap_year(2023))


class DaysInMonthTest(unittest.TestCase):
    def test_january(self):
        self.assertEqual(days_in_month(2023, 1), 31)

    def test_bad_month(self):
        with self.assertRaises(ValueError):
            days_in_month(2023, 13)


if __name__ == "__main__":
    unittest.main()
