import unittest

from textkit import slugify


class SlugifyTest(unittest.TestCase):
    def test_single_word(self):
        self.assertEqual(slugify("Hello"), "hello")

    def test_two_words(self):
        self.assertEqual(slugify("hello world"), "hello-world")


if __name__ == "__main__":
    unittest.main()
