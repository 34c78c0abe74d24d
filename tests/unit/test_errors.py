"""Error messages name their suite once, however many layers pass them on."""

from benchwarden.errors import BuildFailed, in_suite


def test_in_suite_adds_the_prefix_once():
    assert in_suite("wordstat", "no benchmark matches") == "suite 'wordstat': no benchmark matches"
    once = in_suite("wordstat", "no benchmark matches")
    assert in_suite("wordstat", once) == once


def test_in_suite_keeps_a_prefixed_error_as_it_is():
    error = BuildFailed("wordstat", "mvn package", 1, "boom")
    message = in_suite("wordstat", error)
    assert message.count("suite 'wordstat'") == 1 and "mvn package" in message


def test_in_suite_prefixes_a_message_about_another_suite():
    assert in_suite("go", "suite 'jmh': broken") == "suite 'go': suite 'jmh': broken"
