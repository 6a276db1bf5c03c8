#: The library's version, sent in User-Agent (a test keeps it equal to pyproject.toml's).
VERSION = "0.1.0"
