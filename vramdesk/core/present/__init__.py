"""Views, reports, command-line output and the "how the numbers are computed" text."""
