import pytest

from textkit import camel_case, kebab_case, snake_case, title_case


@pytest.mark.parametrize(
    "text, expected",
    [
        ("the lord of the rings", "The Lord of the Rings"),
        ("a tale of two cities", "A Tale of Two Cities"),
        ("war and peace", "War and Peace"),
        ("the lord of the rings: the return of the king", "The Lord of the Rings: The Return of the King"),
        ("NASA plans a mission to mars", "NASA Plans a Mission to Mars"),
        ("my new iPhone case", "My New iPhone Case"),
        ("a state-of-the-art design", "A State-Of-The-Art Design"),
        ("(parenthetical) remarks", "(Parenthetical) Remarks"),
        ("ALL IS WELL", "ALL IS WELL"),
        ("", ""),
    ],
)
def test_title_case(text, expected):
    assert title_case(text) == expected


def test_title_case_keeps_whitespace():
    assert title_case("  two  words\n") == "  Two  Words\n"


def test_title_case_lowers_shouting_small_words_inside():
    assert title_case("harry potter and The goblet") == "Harry Potter and the Goblet"


@pytest.mark.parametrize(
    "text, snake, kebab, camel",
    [
        ("HTTPServer error", "http_server_error", "http-server-error", "httpServerError"),
        ("parseJSONValue", "parse_json_value", "parse-json-value", "parseJsonValue"),
        ("user_id value", "user_id_value", "user-id-value", "userIdValue"),
        ("already-kebab-case", "already_kebab_case", "already-kebab-case", "alreadyKebabCase"),
        ("version 2 release", "version_2_release", "version-2-release", "version2Release"),
        ("  ", "", "", ""),
    ],
)
def test_identifier_styles(text, snake, kebab, camel):
    assert snake_case(text) == snake
    assert kebab_case(text) == kebab
    assert camel_case(text) == camel


def test_upper_camel_case():
    assert camel_case("user_id value", upper_first=True) == "UserIdValue"
