from benchwarden.cli import entry_point

entry_point()
