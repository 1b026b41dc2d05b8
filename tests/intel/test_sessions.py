from datetime import UTC, date, datetime

from intel.sessions import last_closed_day


def test_a_day_is_closed_only_after_the_us_close():
    assert last_closed_day(datetime(2026, 11, 20, 20, 59, tzinfo=UTC)) == date(2026, 11, 19)
    assert last_closed_day(datetime(2026, 11, 20, 21, 0, tzinfo=UTC)) == date(2026, 11, 20)
    assert last_closed_day(datetime(2026, 11, 21, 1, 0, tzinfo=UTC)) == date(2026, 11, 20)
