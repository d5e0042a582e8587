"""English formats: times to the second, dates as ISO 8601 writes them.

Django's own English formats show a time as "10:20 a.m.": in the admin, two events of one
minute (a delivery's attempts, a record's retries) looked simultaneous. The server runs in UTC.
"""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i:s"
TIME_FORMAT = "H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i:s"
