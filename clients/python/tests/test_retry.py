import pathlib
import unittest

import smsgw
from smsgw._retry import ONCE, SAFE, Backoff, parse_retry_after, retry_delay


def fixed(r):
    return Backoff(base=0.5, cap=8.0, max_retry_after=60.0, random=lambda: r)


class RetryTest(unittest.TestCase):
    def test_when_a_safe_request_meets_a_network_error_429_or_503_then_full_jitter_under_a_doubling_capped_bound(self):
        for outcome in ({"network": True}, {"status": 429}, {"status": 503}):
            with self.subTest(**outcome):
                self.assertAlmostEqual(retry_delay(policy=SAFE, retry=0, settings=fixed(0.999), **outcome), 0.4995)
                self.assertAlmostEqual(retry_delay(policy=SAFE, retry=3, settings=fixed(0.5), **outcome), 2.0)
                self.assertAlmostEqual(retry_delay(policy=SAFE, retry=10, settings=fixed(0.999), **outcome), 7.992)
                self.assertEqual(retry_delay(policy=SAFE, retry=2, settings=fixed(0), **outcome), 0)

    def test_when_other_answers_come_back_then_nothing_is_retried(self):
        for status in (400, 401, 404, 409, 410, 413, 422, 500, 502, 504):
            self.assertIsNone(retry_delay(policy=SAFE, retry=0, status=status, code="X", settings=fixed(0.5)))
        self.assertEqual(retry_delay(policy=SAFE, retry=0, status=409, code="IDEMPOTENCY_IN_PROGRESS", retry_after=1, settings=fixed(0.5)), 1)
        self.assertIsNone(retry_delay(policy=ONCE, retry=0, status=409, code="IDEMPOTENCY_IN_PROGRESS", settings=fixed(0.5)))

    def test_when_retry_after_is_given_then_it_is_the_delay_unless_over_the_longest_wait(self):
        self.assertEqual(retry_delay(policy=SAFE, retry=0, status=429, retry_after=7, settings=fixed(0.5)), 7)
        self.assertEqual(retry_delay(policy=SAFE, retry=4, status=503, retry_after=0, settings=fixed(0.5)), 0)
        self.assertIsNone(retry_delay(policy=SAFE, retry=0, status=429, retry_after=61, settings=fixed(0.5)))

    def test_when_a_once_only_request_fails_then_only_a_connection_never_opened_and_429_are_retried(self):
        self.assertEqual(retry_delay(policy=ONCE, retry=0, network=True, connected=False, settings=fixed(0.5)), 0.25)
        self.assertIsNone(retry_delay(policy=ONCE, retry=0, network=True, connected=True, settings=fixed(0.5)))
        self.assertIsNone(retry_delay(policy=ONCE, retry=0, status=503, settings=fixed(0.5)))
        self.assertEqual(retry_delay(policy=ONCE, retry=0, status=429, retry_after=1, settings=fixed(0.5)), 1)

    def test_when_retry_after_is_seconds_or_an_http_date_then_it_is_read_as_seconds(self):
        self.assertEqual(parse_retry_after("3"), 3)
        self.assertEqual(parse_retry_after(" 0 "), 0)
        self.assertEqual(parse_retry_after("Tue, 01 Jan 2030 00:00:10 GMT", now=1893456000), 10)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))

    def test_when_the_package_is_published_then_the_version_it_announces_is_pyprojects(self):
        text = (pathlib.Path(__file__).parent.parent / "pyproject.toml").read_text()
        version = next(line.split("=", 1)[1].strip().strip('"') for line in text.splitlines() if line.startswith("version"))
        self.assertEqual(smsgw.VERSION, version)
        self.assertEqual(smsgw.__version__, version)


if __name__ == "__main__":
    unittest.main()
