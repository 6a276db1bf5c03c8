import json
import os
import unittest

from smsgw import envelope
from smsgw import _aes_gcm

VECTORS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "packages", "e2e-envelope", "test-vectors.json")


class EnvelopeVectorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(VECTORS, encoding="utf-8") as file:
            cls.vectors = json.load(file)

    def test_when_each_valid_envelope_is_opened_then_its_plain_text_comes_back(self):
        for v in self.vectors["valid"]:
            with self.subTest(plaintext=v["plaintext"]):
                self.assertEqual(envelope.open_envelope(v["envelope"], v["passphrase"]), v["plaintext"])

    def test_when_each_text_is_sealed_with_the_vector_salt_and_nonce_then_the_vector_envelope_comes_out(self):
        for v in self.vectors["valid"]:
            with self.subTest(plaintext=v["plaintext"]):
                sealed = envelope.seal(v["plaintext"], v["passphrase"], v["kdf"], bytes.fromhex(v["salt"]), bytes.fromhex(v["nonce"]))
                self.assertEqual(sealed, v["envelope"])

    def test_when_each_invalid_envelope_is_opened_then_it_fails(self):
        for v in self.vectors["invalid"]:
            with self.subTest(why=v["why"]):
                with self.assertRaises(envelope.DecryptionFailed):
                    envelope.open_envelope(v["envelope"], v["passphrase"])


class EnvelopeTest(unittest.TestCase):
    def test_when_a_text_is_sealed_twice_then_both_differ_and_open(self):
        a = envelope.seal("secret", "pass", {"ln": 10, "r": 8, "p": 1})
        b = envelope.seal("secret", "pass", {"ln": 10, "r": 8, "p": 1})
        self.assertNotEqual(a, b)
        self.assertEqual([envelope.open_envelope(a, "pass"), envelope.open_envelope(b, "pass")], ["secret", "secret"])

    def test_when_aes_gcm_runs_nist_test_case_16_then_the_ciphertext_and_tag_match(self):
        key = bytes.fromhex("feffe9928665731c6d6a8f9467308308" * 2)
        iv = bytes.fromhex("cafebabefacedbaddecaf888")
        plain = bytes.fromhex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        )
        aad = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        expected = (
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
            "76fc6ece0f4e1768cddf8853bb2d551b"
        )
        self.assertEqual(_aes_gcm.encrypt(key, iv, plain, aad).hex(), expected)
        self.assertIsNone(_aes_gcm.decrypt(key, iv, bytes.fromhex(expected[:-2] + "00"), aad))
