#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
    from django.core.management import execute_from_command_line

    from ragsite.embedded import local_services_start

    local_services_start()  # the settings only name the embedded PostgreSQL; commands need it running
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
